/**
 * The playground's static files (public/) and the bundled example files (examples/), read from
 * the package root. Only names from a fixed pattern are served: no path ever reaches the disk
 * from the URL unchecked.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Package root: this module lives in src/server/ (tsx) or dist/server/ (built). */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  ico: 'image/x-icon',
};

const SAFE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,100}$/;

export function contentTypeOf(name: string): string {
  const ext = name.slice(name.lastIndexOf('.') + 1).toLowerCase();
  return CONTENT_TYPES[ext] ?? 'text/plain; charset=utf-8';
}

/** A file directly inside `dir` (no sub-folders), or null when the name is unsafe or missing. */
export async function readSafeFile(dir: string, name: string): Promise<Buffer | null> {
  if (!SAFE_NAME.test(name) || name.includes('..')) return null;
  try {
    return await readFile(join(dir, name));
  } catch {
    return null;
  }
}

export interface ExampleInfo {
  name: string;
  bytes: number;
}

/** Example source files shipped with the package (examples/*), sorted by name. */
export async function listExamples(dir: string): Promise<ExampleInfo[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const out: ExampleInfo[] = [];
  for (const name of names.sort()) {
    if (!SAFE_NAME.test(name) || name.startsWith('.') || name.endsWith('.md')) continue;
    const buf = await readSafeFile(dir, name);
    if (buf) out.push({ name, bytes: buf.length });
  }
  return out;
}
