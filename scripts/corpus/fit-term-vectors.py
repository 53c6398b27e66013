"""Term vectors from comment/code co-occurrence (scripts/corpus/comment-blocks.ts's blocks).

Counts, over all blocks, how often a comment term and a code term occur together (each block
weighted so that no repository gives more than 3,000 blocks' worth), keeps the terms found in at
least MIN_REPOS repositories, turns the counts into positive PMI (context distribution smoothed,
alpha 0.75) and factorizes it by truncated SVD: comment-term vectors U*sqrt(S) and code-term
vectors V*sqrt(S), so that a query's words and a line's identifiers meet in one space.

    python3 scripts/corpus/fit-term-vectors.py .scratch/blocks.tsv OUTDIR [RANK]

Writes OUTDIR/{nl,code}.vocab.json and OUTDIR/{nl,code}.f32 (row-major, unit-normalized). Needs
numpy and scipy.
"""
import json
import os
import sys
from collections import Counter, defaultdict

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.linalg import svds

MIN_REPOS = 3
MAX_VOCAB = 30000
REPO_CAP = 3000.0

src, out = sys.argv[1], sys.argv[2]
rank = int(sys.argv[3]) if len(sys.argv) > 3 else 64
os.makedirs(out, exist_ok=True)

blocks = []
per_repo = Counter()
nl_repos, code_repos = defaultdict(set), defaultdict(set)
nl_df, code_df = Counter(), Counter()
with open(src, encoding='utf8') as f:
    for line in f:
        repo, nl, code = line.rstrip('\n').split('\t')
        nl, code = nl.split(), code.split()
        blocks.append((repo, nl, code))
        per_repo[repo] += 1
        for t in nl:
            nl_repos[t].add(repo)
            nl_df[t] += 1
        for t in code:
            code_repos[t].add(repo)
            code_df[t] += 1

def vocab(df, repos):
    ok = [t for t in df if len(repos[t]) >= MIN_REPOS]
    ok.sort(key=lambda t: (-df[t], t))
    return {t: i for i, t in enumerate(ok[:MAX_VOCAB])}

nv, cv = vocab(nl_df, nl_repos), vocab(code_df, code_repos)
rows, cols, vals = [], [], []
for repo, nl, code in blocks:
    w = min(1.0, REPO_CAP / per_repo[repo])
    a = [nv[t] for t in nl if t in nv]
    b = [cv[t] for t in code if t in cv]
    if not a or not b:
        continue
    for i in a:
        rows.extend([i] * len(b))
        cols.extend(b)
        vals.extend([w] * len(b))
M = coo_matrix((np.array(vals, np.float64), (np.array(rows), np.array(cols))), shape=(len(nv), len(cv))).tocsr()
M.sum_duplicates()
total = M.sum()
pr = np.asarray(M.sum(1)).ravel() / total
pc = np.asarray(M.sum(0)).ravel() ** 0.75
pc /= pc.sum()
C = M.tocoo()
pmi = np.log(C.data / total / (pr[C.row] * pc[C.col]))
keep = pmi > 0
P = coo_matrix((pmi[keep], (C.row[keep], C.col[keep])), shape=M.shape).tocsr()
U, S, Vt = svds(P, k=rank, random_state=7)
order = np.argsort(-S)
U, S, Vt = U[:, order], S[order], Vt[order]
nlv = U * np.sqrt(S)
cdv = Vt.T * np.sqrt(S)
for name, vec, voc in (('nl', nlv, nv), ('code', cdv, cv)):
    norm = np.linalg.norm(vec, axis=1, keepdims=True)
    vec = vec / np.maximum(norm, 1e-9)
    vec.astype(np.float32).tofile(f'{out}/{name}.f32')
    json.dump(sorted(voc, key=voc.get), open(f'{out}/{name}.vocab.json', 'w'))
print(f'{len(blocks)} blocks, {len(nv)} comment terms, {len(cv)} code terms, {P.nnz} positive pairs, rank {rank}', file=sys.stderr)

def near(word, k=8):
    if word not in nv:
        return []
    q = nlv[nv[word]] / np.linalg.norm(nlv[nv[word]])
    c = cdv / np.maximum(np.linalg.norm(cdv, axis=1, keepdims=True), 1e-9)
    inv = sorted(cv, key=cv.get)
    return [inv[j] for j in np.argsort(-(c @ q))[:k]]

for w in ['redirect', 'retry', 'header', 'merg', 'timeout', 'cach', 'encod', 'permission']:
    print(w, near(w), file=sys.stderr)
