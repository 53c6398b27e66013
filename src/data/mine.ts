/**
 * `skim data mine`: a repository's git history -> commit samples in the format of
 * ../shared/data/commits.jsonl.gz (one JSON object per (commit, file)). One streamed `git log -p
 * -U0` walk gives the hunks; one `git cat-file --batch` process gives the files before each commit.
 */
import { createWriteStream } from 'node:fs';
import { basename } from 'node:path';
import { SkimError } from '../core/errors.js';
import { detectLanguage } from '../core/syntax/index.js';
import { CODE_LANGUAGES, cleanMessage, isReleaseChore, rejectContent, rejectPath, splitOf } from './commitFilters.js';
import { chooseWindow, labelsFromHunks, relativeTo } from './commitLabels.js';
import { assertGitRepo, BlobReader, gitOutput } from './git.js';
import { type CommitRecord, type FileDiff, readCommitLog } from './gitLog.js';

export interface CommitSample {
  repo: string;
  commit: string;
  time: number;
  path: string;
  lang: string;
  query: string;
  window_start: number;
  code: string;
  gold_lines: number[];
  anchor_lines: number[];
  file_lines: number;
  split: 'train' | 'val';
}

export interface MineOptions {
  repo: string;
  out: string;
  since?: string;
  max?: number;
  /** Window size in lines (default 300). */
  window?: number;
  rev?: string;
  /** The `repo` field; default: owner/name of the origin remote, else the directory name. */
  name?: string;
  /** Files with more changed (added + deleted) lines are dropped as huge diffs. */
  maxFileChange?: number;
  /** Commits changing more lines than this in total are dropped as huge diffs. */
  maxCommitChange?: number;
  onStart?: (totalCommits: number) => void;
  onCommit?: (done: number, samples: number) => void;
}

const COMMIT_DROPS = ['merge', 'root', 'emptyMessage', 'releaseChore', 'hugeDiff', 'noSamples'] as const;
const FILE_DROPS = [
  'added',
  'deleted',
  'binary',
  'vendored',
  'lockfile',
  'generated',
  'minified',
  'unknownLanguage',
  'hugeDiff',
  'noLabels',
  'missingBlob',
] as const;

export interface MineStats {
  repo: string;
  commits: { seen: number; withSamples: number; dropped: Record<(typeof COMMIT_DROPS)[number], number> };
  files: { seen: number; kept: number; dropped: Record<(typeof FILE_DROPS)[number], number> };
  samples: { train: number; val: number };
  seconds: number;
}

const zero = <K extends string>(keys: readonly K[]): Record<K, number> => Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;

/** owner/name from the origin remote URL (https or scp-like), else the work tree's directory name. */
export async function repoName(repo: string, top: string): Promise<string> {
  try {
    const url = (await gitOutput(repo, ['config', '--get', 'remote.origin.url'])).trim();
    const m = /[:/]([^/:]+)\/([^/]+?)(\.git)?\/?$/.exec(url);
    if (m) return `${m[1]}/${m[2]}`;
  } catch {
    // no remote
  }
  return basename(top);
}

/** How many commits the walk will visit (for the progress bar). */
export async function countCommits(repo: string, o: { rev?: string; since?: string; max?: number }): Promise<number> {
  const args = ['rev-list', '--count'];
  if (o.since) args.push(`--since=${o.since}`);
  if (o.max !== undefined) args.push(`--max-count=${o.max}`);
  args.push(o.rev ?? 'HEAD', '--');
  return Number((await gitOutput(repo, args)).trim()) || 0;
}

function splitFileLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Mine samples from one commit's file diff; returns the sample or the reason it was dropped. */
async function sampleFromFile(
  c: CommitRecord,
  f: FileDiff,
  query: string,
  ctx: { repo: string; blobs: BlobReader; window: number; maxFileChange: number },
): Promise<CommitSample | (typeof FILE_DROPS)[number]> {
  if (f.status === 'added') return 'added';
  if (f.status === 'deleted') return 'deleted';
  if (f.binary) return 'binary';
  const why = rejectPath(f.oldPath);
  if (why) return why;
  const lang = detectLanguage(f.oldPath);
  if (!CODE_LANGUAGES.has(lang)) return 'unknownLanguage';
  if (f.hunks.length === 0) return 'noLabels'; // pure rename or mode change
  if (f.added + f.deleted > ctx.maxFileChange) return 'hugeDiff';
  if (!f.oldBlob) return 'missingBlob';
  const blob = await ctx.blobs.read(f.oldBlob);
  if (!blob) return 'missingBlob';
  if (blob.subarray(0, 8000).includes(0)) return 'binary';
  const lines = splitFileLines(blob.toString('utf8'));
  const content = rejectContent(lines);
  if (content) return content;
  const { gold, anchors } = labelsFromHunks(f.hunks, lines.length);
  if (gold.length + anchors.length === 0) return 'noLabels';
  const size = Math.min(ctx.window, lines.length);
  const start = chooseWindow([...gold, ...anchors], lines.length, ctx.window);
  const g = relativeTo(gold, start, size);
  const a = relativeTo(anchors, start, size);
  const windowLines = lines.slice(start - 1, start - 1 + size);
  const endsFile = start - 1 + size >= lines.length;
  const code = windowLines.join('\n') + (endsFile && !blob.toString('utf8').endsWith('\n') ? '' : '\n');
  return {
    repo: ctx.repo,
    commit: c.sha,
    time: c.time,
    path: f.oldPath,
    lang,
    query,
    window_start: start,
    code,
    gold_lines: g,
    anchor_lines: a,
    file_lines: lines.length,
    split: splitOf(c.sha),
  };
}

export async function mineRepository(o: MineOptions): Promise<MineStats> {
  const t0 = Date.now();
  const top = await assertGitRepo(o.repo);
  const repo = o.name ?? (await repoName(o.repo, top));
  const window = o.window ?? 300;
  const maxFileChange = o.maxFileChange ?? 400;
  const maxCommitChange = o.maxCommitChange ?? 3000;
  const stats: MineStats = {
    repo,
    commits: { seen: 0, withSamples: 0, dropped: zero(COMMIT_DROPS) },
    files: { seen: 0, kept: 0, dropped: zero(FILE_DROPS) },
    samples: { train: 0, val: 0 },
    seconds: 0,
  };
  // an empty repository (no HEAD) has no history to mine
  const hasHead = await gitOutput(o.repo, ['rev-parse', '--verify', '--quiet', `${o.rev ?? 'HEAD'}^{commit}`]).then(
    () => true,
    () => false,
  );
  if (!hasHead && o.rev && o.rev !== 'HEAD') throw new SkimError(`unknown revision: ${o.rev}`, 'EUSAGE');
  o.onStart?.(hasHead ? await countCommits(o.repo, o) : 0);
  const out = createWriteStream(o.out);
  const outError = new Promise<never>((_, reject) => out.on('error', reject));
  outError.catch(() => {});
  const write = (s: string): Promise<void> | null => (out.write(s) ? null : Promise.race([new Promise<void>((r) => out.once('drain', r)), outError]));
  const blobs = new BlobReader(o.repo);
  try {
    if (hasHead) {
      for await (const c of readCommitLog(o.repo, { rev: o.rev, since: o.since, max: o.max })) {
        stats.commits.seen++;
        const drop = commitDrop(c, maxCommitChange);
        if (drop) stats.commits.dropped[drop]++;
        else {
          const query = cleanMessage(c.message);
          let n = 0;
          for (const f of c.files) {
            stats.files.seen++;
            const s = await sampleFromFile(c, f, query, { repo, blobs, window, maxFileChange });
            if (typeof s === 'string') {
              stats.files.dropped[s]++;
              continue;
            }
            stats.files.kept++;
            stats.samples[s.split]++;
            n++;
            const wait = write(JSON.stringify(s) + '\n');
            if (wait) await wait;
          }
          if (n > 0) stats.commits.withSamples++;
          else stats.commits.dropped.noSamples++;
        }
        o.onCommit?.(stats.commits.seen, stats.samples.train + stats.samples.val);
      }
    }
  } finally {
    blobs.close();
    await new Promise<void>((resolve) => out.end(resolve));
  }
  stats.seconds = (Date.now() - t0) / 1000;
  return stats;
}

function commitDrop(c: CommitRecord, maxCommitChange: number): (typeof COMMIT_DROPS)[number] | null {
  if (c.parents.length > 1) return 'merge';
  if (c.parents.length === 0) return 'root';
  const query = cleanMessage(c.message);
  if (!query) return 'emptyMessage';
  if (isReleaseChore(query)) return 'releaseChore';
  let changed = 0;
  for (const f of c.files) if (f.status !== 'added' && !rejectPath(f.oldPath)) changed += f.added + f.deleted;
  if (changed > maxCommitChange) return 'hugeDiff';
  return null;
}

/** A short human summary of the filter counts (stderr). */
export function formatMineStats(s: MineStats): string {
  const nz = (r: Record<string, number>) =>
    Object.entries(r)
      .filter(([, v]) => v > 0)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ') || 'none';
  return [
    `repo ${s.repo}: ${s.commits.seen} commits walked in ${s.seconds.toFixed(1)}s, ${s.commits.withSamples} gave samples`,
    `  commits dropped: ${nz(s.commits.dropped)}`,
    `  files: ${s.files.seen} seen, ${s.files.kept} kept; dropped: ${nz(s.files.dropped)}`,
    `  samples: ${s.samples.train} train, ${s.samples.val} val`,
  ].join('\n');
}
