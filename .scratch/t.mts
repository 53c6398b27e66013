import { readFileSync } from 'node:fs';
import { createPruner } from '/work/main/src/core/prune.js';
import { SessionMemory } from '/work/main/src/core/session/memory.js';
const logging = readFileSync('/work/main/examples/logging.py', 'utf8');
const lines = logging.split('\n');
function numbered(text: string, a: number, b: number): string {
  return text.split('\n').slice(a - 1, b).map((l, k) => `${String(a + k).padStart(6)}\t${l}`).join('\n') + '\n';
}
const pruner = createPruner();
const session = new SessionMemory();
const window = lines.slice(119, 180).join('\n') + '\n';
const a = await pruner.prune({ code: window, path: 'logging.py', firstLine: 120, session });
console.log(a.policy, a.warnings);
const r = await pruner.prune({ code: numbered(logging, 100, 200), path: 'logging.py', query: 'Where are the caplog records replaced instead of cleared?', session });
console.log(r.text, r.policy);
