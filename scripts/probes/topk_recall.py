"""Top-k recall of a probe dump's stage scores (the evaluator's selection, src/train/metrics.ts).

Reads the files scripts/probe-dump.ts writes and prints, per set and query kind, the share of the
labelled lines on gold files that a greedy top-k by score keeps under 1/4 and 1/8 of the file's
characters (ties: earlier line first; lines that do not fit are skipped).

    python3 scripts/probes/topk_recall.py DUMP s1,s2,s3 val,swebench-dev,goalhint-dev

Needs numpy only.
"""
import json
import sys

import numpy as np


def select_topk(scores, costs, budget):
    order = np.lexsort((np.arange(len(scores)), -scores))
    keep = np.zeros(len(scores), bool)
    used = 0.0
    for i in order:
        if used + costs[i] > budget:
            continue
        keep[i] = True
        used += costs[i]
    return keep


def gold_groups(meta, name):
    """Gold files with labels, grouped as the training log groups validation (source / query kind)."""
    groups = {}
    for f in meta['files']:
        if f['role'] != 'gold' or not f['lab']:
            continue
        key = (f['src'] + ('/' + f['kind'] if f['src'] == 'teacher' else '')) if name == 'val' else name
        groups.setdefault(key, []).append(f)
    return groups


def recall(scores, files, ratio):
    hit = total = 0
    for f in files:
        costs = np.array(f['chars'], float)
        keep = select_topk(scores[f['off']:f['off'] + f['n']].astype(np.float64), costs, costs.sum() / ratio)
        hit += keep[f['lab']].sum()
        total += len(f['lab'])
    return hit / total


def main(dump, stages, sets):
    for name in sets:
        meta = json.load(open(f'{dump}/{name}.meta.json'))
        scores = {s: np.fromfile(f'{dump}/{name}.{s}.f32', dtype=np.float32) for s in stages}
        for group, files in sorted(gold_groups(meta, name).items()):
            cells = [f'{s} R@{r}x {recall(scores[s], files, r):.3f}' for s in stages for r in (4, 8)]
            print(f'{group} ({len(files)} files): ' + ', '.join(cells))


if __name__ == '__main__':
    if len(sys.argv) != 4:
        sys.exit('usage: topk_recall.py DUMP STAGES SETS   (e.g. DUMP s1,s2 val,swebench-dev)')
    main(sys.argv[1], sys.argv[2].split(','), sys.argv[3].split(','))
