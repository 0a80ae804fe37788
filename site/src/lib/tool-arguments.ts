/**
 * A tool call's arguments for reading: a JSON object's short scalar fields on one summary
 * line (`path: sqlcsv/cli.py`), its long or multi-line strings below, each under its name.
 * Anything else (not JSON, not an object) is shown as sent.
 */
export function formatArguments(raw: string): { summary: string; text: string } {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { summary: '', text: raw };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { summary: '', text: JSON.stringify(value, null, 2) };
  const short: string[] = [];
  const long: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    if (typeof v === 'string' && (v.includes('\n') || v.length > 120)) long.push(`── ${key} ──\n${v}`);
    else if (typeof v === 'string') short.push(`${key}: ${v}`);
    else {
      const json = JSON.stringify(v);
      if (json.length > 120) long.push(`── ${key} ──\n${JSON.stringify(v, null, 2)}`);
      else short.push(`${key}: ${json}`);
    }
  }
  return { summary: short.join('  ·  '), text: long.join('\n') };
}
