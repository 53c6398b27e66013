/**
 * Attributes, decorators, annotations and doc comments belong to the item after them
 * (`#[derive(Debug)]`, `@property`, `[Fact]`, `/// Docs`, a Go comment above a `func`). Shown
 * without it they mislead (a doc comment documenting nothing) or do not parse (rustfmt: "expected
 * item after attributes"). This links each such line to the first line of its item; repair keeps
 * the two together. Shared by the tree walker and the fallback index; linear time.
 */
import type { LineSyntax } from '../types.js';
import { languageInfo } from './languages.js';

/** A line that only closes something: nothing for an attribute or doc comment above it to belong to. */
const CLOSING = /^\s*([)\]}]|end\b)/;
const GO_DECLARATION = /^(func|type|var|const)\b/;

/**
 * Per line: the first line of the item its attribute/decorator/annotation/doc comment belongs to,
 * or -1. `attachmentRows` marks the lines that hold nothing but (part of) an attribute, decorator or
 * annotation; doc comments are found here from the text. Regular comments and blank lines may sit
 * between them and their item, as rustdoc, javadoc and JSDoc allow.
 */
export function linkAttachments(lines: readonly string[], syntax: readonly LineSyntax[], language: string, attachmentRows: Uint8Array): Int32Array {
  const n = lines.length;
  const out = new Int32Array(n).fill(-1);
  const doc = docCommentRows(lines, syntax, language);
  let item = -1;
  for (let i = n - 1; i >= 0; i--) {
    if (attachmentRows[i] || doc[i]) out[i] = item;
    else if (syntax[i]?.kind !== 'comment' && syntax[i]?.kind !== 'blank') item = CLOSING.test(lines[i] ?? '') ? -1 : i;
  }
  return out;
}

/**
 * Doc comment lines: `///` lines and `/**` blocks in languages with `//` comments (Rust, the C
 * family, JavaScript/TypeScript, Java, C#, PHP, Go, Kotlin, Swift...), and in Go the `//` lines
 * right above a top-level declaration. Blank lines inside a `/**` block count as part of it.
 */
function docCommentRows(lines: readonly string[], syntax: readonly LineSyntax[], language: string): Uint8Array {
  const n = lines.length;
  const doc = new Uint8Array(n);
  if (languageInfo(language).lineComment !== '//') return doc;
  // no line after this one closes a block comment (found by a search that reached the end):
  // later `/**` lines need not search again (that would be quadratic)
  let noCloseAfter = n;
  for (let i = 0; i < n; i++) {
    if (syntax[i]?.kind !== 'comment') continue;
    const t = (lines[i] ?? '').trimStart();
    if (t.startsWith('///') && !t.startsWith('////')) doc[i] = 1;
    else if (/^\/\*\*(?![*/])/.test(t)) {
      // (`/***...***/` is a banner, not documentation)
      let j = i;
      if (!t.slice(3).includes('*/')) {
        j = i >= noCloseAfter ? n : i + 1;
        while (j < n && !(lines[j] ?? '').includes('*/')) j++;
      }
      if (j >= n) {
        noCloseAfter = Math.min(noCloseAfter, i);
        continue; // unterminated: not a doc comment we can place
      }
      for (let r = i; r <= j; r++) doc[r] = 1;
      i = j;
    }
  }
  if (language === 'go') {
    // godoc: the comment lines directly above a top-level declaration, no blank line between
    for (let i = 0; i < n; i++) {
      const ls = syntax[i];
      if (ls?.depth !== 0 || !(ls.kind === 'header' || GO_DECLARATION.test(lines[i] ?? ''))) continue;
      for (let r = i - 1; r >= 0 && syntax[r]?.kind === 'comment' && (lines[r] ?? '').trimStart().startsWith('//'); r--) doc[r] = 1;
    }
  }
  return doc;
}
