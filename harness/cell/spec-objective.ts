import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { SpecInvalidError, loadRequirements, type Requirement } from '../grading/spec-requirements.js';
import { renderBriefSource } from '../task/brief-sources.js';
import { loadTaskDefinition } from '../task/task-definition.js';

/** What every node of a spec-driven run is handed: the spec's text and one acceptance criterion per requirement. */
export interface SpecObjective {
  /** The one-line goal of the root. */
  goal: string;
  /** SPEC.md, whole, then each of the task's brief sources (task.yaml `brief.sources`) with its licence notice. */
  context: string;
  /** One line per requirement, in order: what planners see and claim. */
  criteria: string[];
  requirements: Requirement[];
}

/**
 * A requirement as an acceptance criterion: its id and title, then the criterion text. The id
 * leads so a claim that echoes the criterion resolves to it; the text never names a test.
 */
export function criterionLine(requirement: Pick<Requirement, 'id' | 'title' | 'criterion'>): string {
  return `${requirement.id} ${requirement.title}: ${requirement.criterion}`;
}

/**
 * The objective of a run on a spec folder (SPEC.md and requirements.yaml), exactly as a sweep
 * cell hands it to the engine. The goal names no file, so the one-file rule cannot stop the
 * root from splitting.
 */
export async function specObjective(specDir: string): Promise<SpecObjective> {
  const requirements = await loadRequirements(specDir);
  const file = path.join(specDir, 'SPEC.md');
  const spec = await readFile(file, 'utf8').catch((cause) => {
    throw new SpecInvalidError(`${file}: cannot read (${(cause as Error).message}); is the spec dir right?`, { cause });
  });
  // Read at run time from the pinned package, so nothing of it is copied into this project.
  const task = await loadTaskDefinition(specDir);
  const sources = await Promise.all(task.brief.sources.map((source) => renderBriefSource(source)));
  const context = [spec.trimEnd(), ...sources.map((text) => text.trimEnd())].join('\n\n---\n\n') + '\n';
  const name = path.basename(path.resolve(specDir));
  return {
    goal: `Build ${name} as the specification describes, meeting all ${requirements.length} numbered requirements`,
    context,
    criteria: requirements.map(criterionLine),
    requirements,
  };
}
