/**
 * What a session remembers of one result: the kept lines the agent can have seen. A result shown
 * but not recordable line by line (input that came back whole before it was read into lines, an
 * output of an unexpected shape) makes the session forget those files instead, so no later
 * marker can stand for a text older than the one the agent was last shown.
 */

import { parseOutputLimit } from '../outputLimit.js';
import type { Document, PruneRequest, PruneResult } from '../types.js';
import type { SessionMemory } from './memory.js';
import { visibleKept } from './outputLimit.js';

export function rememberShown(session: SessionMemory, req: PruneRequest, doc: Document | null, result: PruneResult): void {
  if (!doc) {
    if (req.path !== undefined) session.forget(req.path);
    return;
  }
  const limit = req.outputLimit === undefined ? null : parseOutputLimit(req.outputLimit);
  const visible = limit ? visibleKept(doc, result.keepMask, result.text, limit, result.omitted) : result.keepMask;
  if (!visible) {
    for (const seg of doc.segments) if (seg.path) session.forget(seg.path);
    return;
  }
  session.recordShown(doc, visible);
  // Lines folded as moved: their marker told the agent where they are now (not vouched for under
  // a limit that may have cut the marker away).
  const shift = doc.seenShift;
  if (shift && !limit)
    session.recordShown(
      doc,
      Uint8Array.from(shift, (v, i) => (v !== 0 && !result.keepMask[i] ? 1 : 0)),
    );
}
