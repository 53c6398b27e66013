"""Capacity and data probe: plain MLPs trained on a probe dump's 64 line features.

Trains a tanh MLP of the given hidden sizes with the listwise ranking loss alone (softmax over a
gold file's lines, uniform target on its labelled lines, each file weighted as in training) on the
dump's training gold files, and after each epoch prints top-k recall at 4x / 8x on validation
(by source / query kind), swebench-dev and goalhint-dev. No CRF, no context stage: it asks what
the line features can give with more units or other training data, in seconds instead of a
15-minute `skim train`. Compare its rows with each other, and with the shipped stage 1 (s1 in
topk_recall.py), not with the shipped model.

    SRC=commit,teacher IW=1 python3 scripts/probes/mlp_capacity.py DUMP 48 4
    python3 scripts/probes/mlp_capacity.py DUMP 256,64 4

SRC: sources to train on (commit, teacher); IW: extra weight for issue-report queries; EXTRA=1:
append the dump's candidate features (<set>.E.f32) to the line features.
Seed 7 unless SEED is set. Needs numpy only.
"""
import json
import os
import sys
import time

import numpy as np

from topk_recall import gold_groups, recall

rng = np.random.default_rng(int(os.environ.get('SEED', '7')))


def load(dump, name):
    meta = json.load(open(f'{dump}/{name}.meta.json'))
    X = np.fromfile(f'{dump}/{name}.X.f32', dtype=np.float32).reshape(-1, meta['F'])
    if os.environ.get('EXTRA') and meta.get('E'):
        # candidate features written next to the line features (probe-dump.ts, TERMVEC=dir)
        E = np.fromfile(f'{dump}/{name}.E.f32', dtype=np.float32).reshape(-1, meta['E'])
        X = np.hstack([X, E])
    return meta, X


class Mlp:
    def __init__(self, sizes, l2=1e-4):
        self.W = [rng.normal(0, 1 / np.sqrt(a), (a, b)).astype(np.float32) for a, b in zip(sizes[:-1], sizes[1:])]
        self.b = [np.zeros(b, np.float32) for b in sizes[1:]]
        params = self.W + self.b
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.t = 0
        self.l2 = l2

    def forward(self, X):
        acts = [X]
        h = X
        for k, (W, b) in enumerate(zip(self.W, self.b)):
            h = h @ W + b
            if k < len(self.W) - 1:
                h = np.tanh(h)
            acts.append(h)
        return acts

    def adam_step(self, acts, dz, lr):
        gW, gb = [None] * len(self.W), [None] * len(self.W)
        d = dz
        for k in range(len(self.W) - 1, -1, -1):
            gW[k] = acts[k].T @ d
            gb[k] = d.sum(0)
            if k > 0:
                d = (d @ self.W[k].T) * (1 - acts[k] ** 2)
        self.t += 1
        for i, (p, g) in enumerate(zip(self.W + self.b, gW + gb)):
            self.m[i] = 0.9 * self.m[i] + 0.1 * g
            self.v[i] = 0.999 * self.v[i] + 0.001 * g * g
            mh = self.m[i] / (1 - 0.9 ** self.t)
            vh = self.v[i] / (1 - 0.999 ** self.t)
            p -= lr * (mh / (np.sqrt(vh) + 1e-8) + (self.l2 * p if p.ndim == 2 else 0))


def listwise_grad(z, files, offs, batch):
    """Loss and d loss / d z of the listwise ranking loss over each file's lines."""
    dz = np.zeros_like(z)
    loss = 0.0
    for k, f in enumerate(files):
        zz = z[offs[k]:offs[k + 1]]
        p = np.exp(zz - zz.max())
        p /= p.sum()
        q = np.zeros_like(p)
        q[f['lab']] = 1 / len(f['lab'])
        loss -= f['w'] * (q[f['lab']] * np.log(p[f['lab']] + 1e-12)).sum()
        dz[offs[k]:offs[k + 1]] = f['w'] * (p - q) / batch
    return loss, dz


def main(dump, hidden, epochs):
    sources = os.environ.get('SRC', 'commit,teacher').split(',')
    issue_weight = float(os.environ.get('IW', '1'))
    meta, Xt = load(dump, 'train')
    files = [f for f in meta['files'] if f['role'] == 'gold' and f['lab'] and f['src'] in sources]
    for f in files:
        if f['kind'] == 'issue':
            f['w'] *= issue_weight
    evals = [(name, *load(dump, name)) for name in ('val', 'swebench-dev', 'goalhint-dev')]
    print(f'train files {len(files)} ({",".join(sources)}, issue weight x{issue_weight}), hidden {hidden}', flush=True)
    net = Mlp([Xt.shape[1]] + hidden + [1])
    batch = 32
    steps = epochs * (len(files) // batch)
    t0 = time.time()
    for epoch in range(epochs):
        perm = rng.permutation(len(files))
        total = 0.0
        for bi in range(len(files) // batch):
            fs = [files[j] for j in perm[bi * batch:(bi + 1) * batch]]
            X = np.vstack([Xt[f['off']:f['off'] + f['n']] for f in fs])
            offs = np.cumsum([0] + [f['n'] for f in fs])
            acts = net.forward(X)
            loss, dz = listwise_grad(acts[-1][:, 0], fs, offs, batch)
            total += loss
            net.adam_step(acts, dz[:, None].astype(np.float32), 0.003 * (1 - 0.9 * (epoch * (len(files) // batch) + bi) / steps))
        print(f'epoch {epoch + 1}: loss {total / len(files):.4f} ({time.time() - t0:.0f} s)', flush=True)
        for name, m, X in evals:
            z = net.forward(X)[-1][:, 0]
            for group, fs in sorted(gold_groups(m, name).items()):
                print(f'   {group}: R@4x {recall(z, fs, 4):.3f} R@8x {recall(z, fs, 8):.3f}', flush=True)


if __name__ == '__main__':
    if len(sys.argv) != 4:
        sys.exit('usage: mlp_capacity.py DUMP HIDDEN EPOCHS   (e.g. DUMP 48 4, DUMP 256,64 4)')
    main(sys.argv[1], [int(h) for h in sys.argv[2].split(',')], int(sys.argv[3]))
