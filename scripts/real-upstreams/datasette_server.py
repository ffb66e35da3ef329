"""Datasette serving a SQLite file of the harness's rows, on its own server (uvicorn, `datasette serve`).

    python datasette_server.py PORT

Routes (1000 rows; ?_size= rows a page, default 100, `_size=max` for max_returned_rows 1000; keyset pagination):
  /things/things.json                 {"database", "table", "rows": [[1, "thing-1", …], …], "columns": [...],
                                       "truncated", "filtered_table_rows_count": 1000, "next": "100",
                                       "next_url": "http://127.0.0.1:PORT/things/things.json?_next=100", …}
  /things/things.json?_shape=objects  the same with "rows": [{"id": 1, …}, …]
  /things/things.json?_shape=array    a bare array of objects; the next page only in `Link: <…>; rel="next"`
  (every shape also sends that Link header; next_url is absolute, built from the request's Host)
"""
import os, sqlite3, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dataset import rows  # noqa: E402


def main():
    directory = tempfile.mkdtemp(prefix="pp-datasette-")
    database = os.path.join(directory, "things.db")
    with sqlite3.connect(database) as connection:
        connection.execute("create table things (id integer primary key, name text, kind text, price text, note text)")
        connection.executemany("insert into things values (:id, :name, :kind, :price, :note)", rows())
    # Datasette's own command line, as its docs run it; --setting allow_download etc. left at the defaults.
    datasette = os.path.join(os.path.dirname(sys.executable), "datasette")
    os.execv(datasette, [datasette, "serve", database, "--host", "127.0.0.1", "--port", sys.argv[1],
                         "--setting", "default_page_size", "100"])


if __name__ == "__main__":
    main()
