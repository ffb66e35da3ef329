#!/usr/bin/env python3
"""Draws time against page count for every contender, both schemes, from a bench/peers.py results file.

    python3 bench/chart.py [bench/results/peers-latest.json] [-o bench/peers-time-vs-pages.png]

Runs matplotlib from bench/.venv (re-executes itself there; bench/peers.py creates the venv).
"""
import argparse, json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
VENV_PYTHON = os.path.join(HERE, ".venv", "bin", "python")

if os.path.realpath(sys.prefix) != os.path.realpath(os.path.join(HERE, ".venv")):
    if not os.path.exists(VENV_PYTHON):
        sys.dont_write_bytecode = True
        sys.path.insert(0, HERE)
        import benchlib
        benchlib.ensure_venv()
    os.execv(VENV_PYTHON, [VENV_PYTHON, os.path.abspath(__file__), *sys.argv[1:]])

import matplotlib  # noqa: E402
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

STYLE = {
    "pageproxy": ("PageProxy", "tab:blue", "o", "-"),
    "aiohttp": ("asyncio + aiohttp (concurrency 8)", "tab:orange", "s", "-"),
    "requests": ("requests, sequential loop", "tab:green", "^", "-"),
    "dlt": ("dlt RESTClient + paginator", "tab:red", "v", "-"),
}
TITLES = {"link": "Link header with rel=\"last\" (known total)", "cursor": "Cursor in body (Slack style)"}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("results", nargs="?", default=os.path.join(HERE, "results", "peers-latest.json"))
    parser.add_argument("-o", "--output", default=os.path.join(HERE, "peers-time-vs-pages.png"))
    args = parser.parse_args()
    with open(args.results) as f:
        res = json.load(f)
    cfg = res["config"]
    fig, axes = plt.subplots(1, 2, figsize=(12, 5), sharey=False)
    for ax, scheme in zip(axes, ("link", "cursor")):
        rows = [r for r in res["cold_summary"] if r["scheme"] == scheme]
        pages = [r["pages"] for r in rows]
        for contender, (label, color, marker, line) in STYLE.items():
            med = [r["median_ms"][contender] / 1000 for r in rows]
            runs = [[t["seconds"] for t in res["cold"] if t["scheme"] == scheme and t["pages"] == p
                     and t["contender"] == contender] for p in pages]
            low = [m - min(rs) for m, rs in zip(med, runs)]
            high = [max(rs) - m for m, rs in zip(med, runs)]
            ax.errorbar(pages, med, yerr=[low, high], label=label, color=color, marker=marker, linestyle=line,
                        capsize=3)
        ax.plot(pages, [r["limit_ms"] / 1000 for r in rows], label="latency limit", color="black",
                linestyle="--")
        if scheme == "link":
            ax.plot(pages, [r["bound_ms"] / 1000 for r in rows], label="page 1 first, then 8 at a time",
                    color="gray", linestyle=":")
        ax.set_title(TITLES[scheme])
        ax.set_xlabel("pages of 20 items (log)")
        ax.set_ylabel("seconds to every item (log; median, bars: min–max)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks(pages)
        ax.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
        ax.yaxis.set_minor_formatter(matplotlib.ticker.FuncFormatter(
            lambda v, _: f"{v:g}" if f"{v:.0e}"[0] in "25" else ""))
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"Cold aggregation, {cfg['latency_ms']} ms per page, {cfg['repeats']} runs each "
                 f"({res['machine']['nproc']} cores, {res['started'][:10]})")
    fig.tight_layout()
    fig.savefig(args.output, dpi=100)
    print(f"wrote {os.path.relpath(args.output)}")


if __name__ == "__main__":
    main()
