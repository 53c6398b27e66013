/**
 * Forty readers of one session at once, the file edited between rounds, some reads cut off (the
 * reader went away) or their process killed: every "unchanged since an earlier read" marker is
 * checked line by line against what the readers actually received before it began.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MARKER_RE, SEEN_VERB } from '../../src/core/layout/layout.js';
import { createPruner } from '../../src/core/prune.js';
import { numberLines } from '../../src/tools/fileTools.js';
import { beginRead } from '../../src/tools/sessionStore.js';

const pruner = createPruner({ scorer: 'heuristic' });
const base = readFileSync(path.resolve(__dirname, '../../examples/logging.py'), 'utf8').split('\n').slice(0, 400);
const NUMBERED = /^\s*(\d+)\t(.*)$/;

/**
 * Round r's version of the file: in odd rounds lines 330-360 are edited, and only reads that are
 * cut off (round 1) or killed (round 3) show them; in even rounds they are back as every reader
 * was shown them in round 0: a claim about them then is true only if what the failed reads
 * showed was accounted for.
 */
function version(r: number): string[] {
  return base.map((l, i) => (r % 2 === 1 && i >= 329 && i < 360 && l.trim() !== '' ? `${l}  # edit ${r}` : l));
}

describe('40 concurrent readers of one session', () => {
  it('make no false "unchanged" claim', async () => {
    const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'skim-readers-')), 'store');
    let clock = 0;
    /**
     * What reached the agent, line number -> text (null: cut mid-line), with the clock just before
     * and just after its commit or abort (the store's update happened in between).
     */
    const received: { pre: number; post: number; lines: Map<number, string | null> }[] = [];
    /** Can a read that asked at `asked` and had its memory at `loaded` claim `text` for line n? */
    const backed = (n: number, text: string, asked: number, loaded: number) => {
      // the latest delivery of line n it certainly had in its memory, and those it may have had
      let certain: (typeof received)[number] | undefined;
      for (const r of received) if (r.post < asked && r.lines.has(n) && (!certain || r.post > certain.post)) certain = r;
      return received.some((r) => r.pre < loaded && r.lines.get(n) === text && (!certain || r === certain || r.post > certain.post));
    };
    let claims = 0;
    const warnings: string[] = [];
    const falseClaims: string[] = [];
    for (let round = 0; round < 5; round++) {
      const lines = version(round);
      const text = `${lines.join('\n')}\n`;
      // All forty have their memory before any is shown (they run at once), and all are pruned
      // before any output goes out (in one process, pruning would hold up the others' store
      // updates past the lock's wait: separate processes do not).
      const barrier = () => {
        let n = 0;
        let open: () => void = () => {};
        const all = new Promise<void>((r) => (open = r));
        return () => {
          if (++n === 40) open();
          return all;
        };
      };
      const loadedAll = barrier();
      const prunedAll = barrier();
      await Promise.all(
        Array.from({ length: 40 }, async (_, k) => {
          const fate = round % 2 === 0 || k % 5 !== 3 ? 'whole' : round === 1 ? 'cut' : 'killed';
          await new Promise((r) => setTimeout(r, (k * 7 + round * 3) % 11));
          // a killed read runs in a process of its own, ended once part of its output is out
          const holder = fate === 'killed' ? spawn(process.execPath, ['-e', 'setTimeout(() => {}, 1e9)']) : null;
          const asked = ++clock;
          // (a lock wait far past the store's 5 s: on a loaded machine forty readers take longer, and
          // what is tested here is the claims, not the machine's speed)
          const read = await beginRead('many', (w) => warnings.push(w), dir, { lockWaitMs: 600_000, ...(holder ? { pid: holder.pid! } : {}) });
          const loaded = ++clock;
          await loadedAll();
          const cutOff = fate !== 'whole';
          const offset = cutOff ? 301 : 1 + ((k * 13) % 200);
          const whole = k % 4 === 0 && round % 2 === 0;
          const code = numberLines(text, whole ? {} : { offset, limit: 120 });
          const result = await pruner.prune({
            code,
            path: 'logging.py',
            query: k % 3 === 0 ? 'Where are caplog records cleared?' : '',
            task: `round ${round}`, // (not the same read asked again: that one would be served in full)
            session: read?.memory,
          });
          await prunedAll();
          // check every claim against what the agent received before this read began
          for (const line of result.text.split('\n')) {
            const m = MARKER_RE.exec(line);
            if (!m || !line.includes(SEEN_VERB)) continue;
            // (a run that moved since it was shown names where it was: "then at a-b")
            const moved = /then at (\d+)-\d+/.exec(line);
            const shift = moved ? Number(moved[1]) - Number(m[3]) : 0;
            for (let n = Number(m[3]); n <= Number(m[4]); n++) {
              claims++;
              if (!backed(n + shift, lines[n - 1], asked, loaded)) falseClaims.push(`round ${round} reader ${k}: line ${n}`);
            }
          }
          // what reaches the agent: all of it, or (cut, killed) its first half
          const out = fate === 'whole' ? result.text : result.text.slice(0, result.text.length >> 1);
          const got = new Map<number, string | null>();
          const outLines = out.split('\n');
          outLines.forEach((l, i) => {
            const m = NUMBERED.exec(l);
            if (m) got.set(Number(m[1]), i === outLines.length - 1 && fate !== 'whole' ? null : m[2]);
          });
          const pre = ++clock;
          if (fate === 'whole') await read?.commit();
          else if (fate === 'cut') await read?.abort();
          else await new Promise((r) => holder!.once('exit', r).kill('SIGKILL')); // killed: says nothing
          received.push({ pre, post: ++clock, lines: got });
        }),
      );
    }
    expect(warnings).toEqual([]);
    expect(claims).toBeGreaterThan(1000);
    expect(falseClaims).toEqual([]);
  }, 120_000);
});
