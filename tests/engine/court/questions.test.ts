import { describe, expect, it } from 'vitest';
import { openQuestions } from '../../../engine/index.js';

describe('questions for a person', () => {
  it('reads NEEDS HUMAN questions and filters "none"', () => {
    expect(
      openQuestions([
        'The admin address is admin@example.com',
        'NEEDS HUMAN: none',
        'needs human: N/A',
        'NEEDS HUMAN: Nothing.',
        'NEEDS HUMAN:',
        'NEEDS HUMAN: which SMTP server?',
      ]),
    ).toEqual(['which SMTP server?']);
  });

  it('finds them on any line of a report, bulleted or not', () => {
    expect(openQuestions(['Assembled the pieces.\n- NEEDS HUMAN: which port should main listen on?\nAll checks pass.'])).toEqual(['which port should main listen on?']);
  });
});
