import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { it } from 'vitest';
import { readSweepJournal } from '../harness/index.js';
import { FakeClock } from '../tests/support/fake-clock.js';
import { manifestVariant, providersFile, recordHttp, startServer } from '../tests/harness/record/http-fixture.js';
it('dbg', async () => {
  const tmp = await mkdtemp(path.join(tmpdir(), 'dbg-'));
  const server = await startServer();
  const providers = await providersFile(path.join(tmp, 'p'), server.url);
  const manifest = await manifestVariant(path.join(tmp, 'm'), 'ceiling', [['max_sessions: 400', `max_sessions: 92`]]);
  const dir = path.join(tmp, 'ceiling');
  const stop = new AbortController();
  let cap2 = 0;
  await recordHttp(dir, { depths: [1, 2] }, { providers, manifest, clock: new FakeClock(), signal: stop.signal, onEvent: (e) => void (e.type === 'session_started' && e.cellIds[0]!.startsWith('cap2') && ++cap2 === 5 && stop.abort()) });
  const r = await recordHttp(dir, { depths: [1, 2] }, { providers, manifest, clock: new FakeClock() });
  const ev = (await readSweepJournal(path.join(dir, 'journal.jsonl'))).events;
  const s = ev.filter((e) => e.type === 'session_started');
  console.log('exit', r.exit, 'started', s.length, 'reopened', s.filter((e: any) => e.reopened).length, r.summary.sessions);
  const seen = new Map<string, number>();
  for (const e of s as any[]) if (!e.reopened) { const k = e.cellIds.join('+') + ' ' + e.sessionId; seen.set(k, (seen.get(k) ?? 0) + 1); }
  console.log('DUP', [...seen.entries()].filter(([, n]) => n > 1).map(([k]) => k).join(' | '));
  console.log('RUNS', ev.filter((e) => e.type === 'run_started' || e.type === 'sweep_stopped').map((e) => e.seq + ' ' + e.type).join(', '));
  console.log(ev.filter((e) => e.type === 'sweep_stopped' || e.type === 'cell_finished').map((e) => JSON.stringify(e).slice(0, 300)).join('\n'));
  await server.stop();
}, 600000);
