/**
 * What the teacher and the judge are asked, and how their replies are checked: a zod schema for
 * the JSON, then range checks against the chunk (inside it, non-empty, not the whole chunk).
 */
import { z } from 'zod';
import type { Chunk } from './chunks.js';

export const TASK_TYPES = [
  'code-summarize',
  'code-refactor',
  'find-relevant-part',
  'code-optimize',
  'code-locate',
  'code-explain',
  'code-debug',
  'feature-addition',
  'code-completion',
] as const;
export type TaskType = (typeof TASK_TYPES)[number];

/** Deterministic rotation over the nine task types by the chunk's corpus ordinal. */
export const taskTypeOf = (c: Chunk): TaskType => TASK_TYPES[c.ordinal % TASK_TYPES.length];

const TASK_GUIDE: Record<TaskType, string> = {
  'code-summarize': 'the agent wants a summary of what one part of this code does and how',
  'code-refactor': 'the agent is about to refactor one piece of logic and needs to see it and what it touches',
  'find-relevant-part': 'the agent is looking for the part of the code that handles one specific concern',
  'code-optimize': 'the agent wants to make one computation here faster or leaner',
  'code-locate': 'the agent needs to find where one specific thing is decided or computed',
  'code-explain': 'the agent wants to understand why one behaviour happens',
  'code-debug': 'the agent is chasing a bug whose cause lies in this code (describe the symptom, not the fix)',
  'feature-addition': 'the agent must add a small feature and needs the lines it would have to change or extend',
  'code-completion': 'the agent must finish or extend an incomplete piece of logic and needs the code it continues',
};

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export function numberedChunk(c: Chunk): string {
  const w = String(c.end).length;
  const out: string[] = [];
  for (let l = c.start; l <= c.end; l++) out.push(`${String(l).padStart(w)}\t${c.fileLines[l - 1]}`);
  return out.join('\n');
}

export function teacherMessages(c: Chunk, task: TaskType): ChatMessage[] {
  return [
    {
      role: 'system',
      content:
        'You write training data for a code-context pruner used by coding agents. You read a numbered code excerpt, ' +
        'write the goal hint an agent would state while working, and list exactly the line numbers that answer it. Reply with JSON only.',
    },
    {
      role: 'user',
      content: [
        `File: ${c.path} (${c.lang}), lines ${c.start}-${c.end}:`,
        '```',
        numberedChunk(c),
        '```',
        `Task type: ${task}: ${TASK_GUIDE[task]}.`,
        'Write one goal hint: a complete, specific question or request about the logic, as the agent would ask it; do not mention file names or line numbers.',
        'Then give the lines that answer it: the smallest set an agent must read (include the header of the function/class they are in). Never the whole excerpt.',
        `Use the line numbers shown (${c.start}-${c.end}). Reply exactly: {"query": "...", "lines": [[first, last], ...]} where each pair is an inclusive range (a single line is [n, n]).`,
      ].join('\n'),
    },
  ];
}

export function judgeMessages(c: Chunk, task: TaskType, query: string, lines: number[]): ChatMessage[] {
  return [
    { role: 'system', content: 'You grade training data for a code-context pruner. Reply with JSON only.' },
    {
      role: 'user',
      content: [
        `File: ${c.path} (${c.lang}), lines ${c.start}-${c.end}:`,
        '```',
        numberedChunk(c),
        '```',
        `Task type: ${task}. Goal hint: ${JSON.stringify(query)}`,
        `Lines selected as the answer: ${compactRanges(lines)}`,
        'Score 1-5: 5 = a realistic, specific hint and the selected lines answer it with nothing important missing and little extra; 1 = vague hint or wrong lines.',
        'Reply exactly: {"score": n, "reason": "..."}',
      ].join('\n'),
    },
  ];
}

export function compactRanges(lines: number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < lines.length; ) {
    let j = i;
    while (j + 1 < lines.length && lines[j + 1] === lines[j] + 1) j++;
    parts.push(i === j ? `${lines[i]}` : `${lines[i]}-${lines[j]}`);
    i = j + 1;
  }
  return parts.join(', ');
}

const lineRef = z.union([z.number().int(), z.tuple([z.number().int(), z.number().int()])]);
export const TeacherReply = z.object({ query: z.string().trim().min(8).max(2000), lines: z.array(lineRef).min(1).max(400) });
export const JudgeReply = z.object({ score: z.number().min(1).max(5), reason: z.string().optional() });

export type Invalid = 'invalidJson' | 'schema' | 'outOfRange' | 'empty' | 'wholeChunk';

/** The first JSON object in a reply (models wrap JSON in prose or ``` fences). */
export function extractJson(text: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  const body = (fenced ? fenced[1] : text).trim();
  const a = body.indexOf('{');
  const b = body.lastIndexOf('}');
  if (a < 0 || b <= a) throw new Error('no JSON object');
  return JSON.parse(body.slice(a, b + 1));
}

/** Validate a teacher reply against the chunk: the sorted unique lines, or why it is unusable. */
export function validateTeacher(text: string, c: Chunk): { query: string; lines: number[] } | Invalid {
  let raw: unknown;
  try {
    raw = extractJson(text);
  } catch {
    return 'invalidJson';
  }
  const parsed = TeacherReply.safeParse(raw);
  if (!parsed.success) return 'schema';
  const set = new Set<number>();
  for (const ref of parsed.data.lines) {
    const [a, b] = typeof ref === 'number' ? [ref, ref] : ref;
    if (a > b || a < c.start || b > c.end) return 'outOfRange';
    for (let l = a; l <= b; l++) set.add(l);
  }
  const lines = [...set].sort((x, y) => x - y);
  if (lines.length === 0 || lines.every((l) => !c.fileLines[l - 1].trim())) return 'empty';
  const nonBlank = (l: number) => c.fileLines[l - 1].trim() !== '';
  let chunkNonBlank = 0;
  for (let l = c.start; l <= c.end; l++) if (nonBlank(l)) chunkNonBlank++;
  // "not the whole chunk": an answer that keeps over 80% of the code lines prunes nothing
  if (lines.filter(nonBlank).length > 0.8 * chunkNonBlank) return 'wholeChunk';
  return { query: parsed.data.query.trim(), lines };
}

export function validateJudge(text: string): number | 'invalidJson' | 'schema' {
  let raw: unknown;
  try {
    raw = extractJson(text);
  } catch {
    return 'invalidJson';
  }
  const parsed = JudgeReply.safeParse(raw);
  return parsed.success ? parsed.data.score : 'schema';
}
