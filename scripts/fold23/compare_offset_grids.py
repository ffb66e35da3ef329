#!/usr/bin/env python3
"""fold23: compare two `bench/offset-filter-grid.py` JSON outputs cell by cell (same grid, same order): wrong counts,
right->wrong, wrong->right, cells identical in status, items and verdict. Usage: compare_offset_grids.py BEFORE AFTER"""
import json, sys
a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
assert len(a)==len(b)
key=lambda c:(c['route'],c['cap'],c['show'],c['hides'],c['total'],c['extra'])
rw=[];wr=[];same=0;diffans=0
for x,y in zip(a,b):
    assert key(x)==key(y)
    if x['ok'] and not y['ok']: rw.append(y)
    elif not x['ok'] and y['ok']: wr.append(y)
    if (x['status'],x['got'],x['ok'])==(y['status'],y['got'],y['ok']): same+=1
print(f"cells {len(a)} wrong before {sum(not c['ok'] for c in a)} after {sum(not c['ok'] for c in b)} right->wrong {len(rw)} wrong->right {len(wr)} identical(status,got,ok) {same}")
for c in rw[:10]: print('RW', c)
for c in wr[:10]: print('WR', key(c), c['status'])
