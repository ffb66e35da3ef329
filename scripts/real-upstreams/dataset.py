"""The items every harness server serves: the same rows, with strings that test byte-exact copying."""

COUNT = 1000


def rows(count=COUNT):
    kinds = ["gizmo", "widget", "sprocket"]
    for n in range(1, count + 1):
        yield {
            "id": n,
            "name": f"thing-{n}",
            "kind": kinds[n % 3],
            "price": f"{n * 1.25:.2f}",
            # Escapes and non-ASCII text: a proxy that re-encodes items would change these bytes.
            "note": f'naïve "quoted" </tag> ☃ \\ {n}' if n % 7 == 0 else None,
        }
