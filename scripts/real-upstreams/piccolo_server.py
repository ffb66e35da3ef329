"""Piccolo API's PiccoloCRUD (a Piccolo ORM table on SQLite) mounted in a Starlette router on uvicorn, as its docs
set it up.

    python piccolo_server.py PORT

Route (1000 rows; `__page` from 1, `__page_size` 15 by default, at most 1000: more is a 403
`{"error": "The page size limit has been exceeded"}`; newest first, the primary key descending, by default):
  /things/                         {"rows": [{"id": 1000, …}, …]}: no next link, no count, no page number; a page
                                   past the end is {"rows": []}. Compact JSON (pydantic), non-ASCII raw UTF-8.
  /things/?__range_header=true     the same with `Content-Range: things 0-99/1000` (react-admin's form: the table's
                                   name as the unit)
  /things/count/                   {"count": 1000, "page_size": 15}
The rows go in through Piccolo's own `insert` into a fresh SQLite file, removed when the server stops.
"""
import os, shutil, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dataset import rows  # noqa: E402


def main():
    port = int(sys.argv[1])
    folder = tempfile.mkdtemp(prefix="pp-piccolo-")
    try:
        from piccolo.columns import Text, Varchar
        from piccolo.engine.sqlite import SQLiteEngine
        from piccolo.table import Table
        from piccolo_api.crud.endpoints import PiccoloCRUD
        from starlette.routing import Mount, Router
        import uvicorn

        db = SQLiteEngine(path=os.path.join(folder, "things.sqlite"))

        class Things(Table, db=db):
            name = Varchar(length=100)
            kind = Varchar(length=20)
            price = Varchar(length=20)
            note = Text(null=True, default=None)

        Things.create_table().run_sync()
        Things.insert(*[Things(id=row["id"], name=row["name"], kind=row["kind"], price=row["price"], note=row["note"])
                        for row in rows()]).run_sync()
        app = Router([Mount("/things", app=PiccoloCRUD(table=Things, read_only=True))])
        uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
