#!/usr/bin/env python3
"""How busy exact_quick_segments' lanes are over `cured bench axes`' power-law segments.

A warp takes K segments a group of G lanes (32 / G groups), each lane every G-th unit of its
segments (a term, or a 16-byte line), and runs each trip to the longest of them; segments over
long_len terms go to exact_quick_long's list. Prints, for each G and K, the share of the lanes'
loads that hold terms, the useful terms a warp's trip carries, and the trips an item.

    python3 bench/segment_lanes.py [--terms] [--long-len 512] [--elem 4]
"""
import argparse
import random


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--terms", action="store_true", help="a term a load (vec 0), not a 16-byte line")
    ap.add_argument("--long-len", type=int, default=512)
    ap.add_argument("--elem", type=int, default=4, help="bytes a term")
    ap.add_argument("--segments", type=int, default=1 << 20)
    a = ap.parse_args()
    rnd = random.Random(1)
    # tools/axesbench_segments.c: Pareto, alpha 1.5, mean ~64
    lens = [int(21.4 / (rnd.random() ** (1 / 1.5))) for _ in range(a.segments)]
    v = 1 if a.terms else 16 // a.elem
    off, units = 0, []
    for n in lens:
        units.append(0 if n == 0 or n > a.long_len else (off + n + v - 1) // v - off // v)
        off += n
    kept = [n if n <= a.long_len else 0 for n in lens]
    print(f"{'lines' if v > 1 else 'terms'}: {sum(kept) / sum(lens):.2f} of the terms not listed")
    for g in (1, 2, 4, 8, 16, 32):
        for k in (1, 2, 4):
            per = 32 // g * k
            trips = loads = terms = items = 0
            for i in range(0, len(units), per):
                t = -(-max(units[i:i + per]) // g)
                trips += t
                loads += sum(units[i:i + per])
                terms += sum(kept[i:i + per])
                items += 1
            print(f"G {g:2d} K {k}: lanes busy {loads / (trips * 32 * k):.2f}, "
                  f"terms a trip {terms / trips:6.1f}, trips an item {trips / items:5.1f}")


if __name__ == "__main__":
    main()
