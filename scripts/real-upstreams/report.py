#!/usr/bin/env python3
"""Markdown for REAL_UPSTREAMS.md from a run's results: python3 report.py RESULTS.json [--probes]"""
import json, sys


def table(results):
    rows = ["| case | server | route's scheme | result | pages / items | direct walk | PageProxy cold (× direct) | cached | NDJSON cold / cached |",
            "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        scheme = r["scheme"] + (f" ({r['detected']})" if r.get("detected") else "")
        result = ("PASS" + (f" (refused as expected: {r['expect_error']})" if r.get("expect_error") else "")) if r["passed"] else "FAIL: " + "; ".join(r["problems"]).replace("|", "\\|")[:260]
        if r.get("upstream_requests") is not None:
            cached = f", {r['cached_requests']} cached" if r.get("cached_requests") is not None else ""
            result += f" ({r['upstream_requests']} upstream requests{cached})"
        rows.append(f"| {r['name']} | {r['server']} | {scheme} | {result} | {r['pages']} / {r['items']} | "
                    f"{r['direct_s'] * 1000:.0f} ms | {r['cold_s'] * 1000:.0f} ms ({r['cold_s'] / r['direct_s']:.2f}×) | "
                    f"{r['cached_s'] * 1000:.1f} ms | {r['ndjson_cold_s'] * 1000:.0f} / {r['ndjson_cached_s'] * 1000:.1f} ms |")
    return "\n".join(rows)


def probes(entries):
    parts = []
    for p in entries:
        parts.append(f"#### {p['server']} (exit {p['status']})\n\n```\n$ PageProxy {p['command']}\n{p['output'].rstrip()}\n```")
    return "\n\n".join(parts)


if __name__ == "__main__":
    data = json.load(open(sys.argv[1]))
    print(f"Load: `{data['uptime']}`\n")
    print(table(data["results"]))
    if "--probes" in sys.argv:
        print("\n" + probes(data["probes"]))
