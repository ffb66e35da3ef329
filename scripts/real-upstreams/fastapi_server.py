"""fastapi-pagination's pages on uvicorn, as its docs set them up.

    python fastapi_server.py PORT

Routes (1000 items; the client picks the size, default 50, at most 100):
  /page        Page            {"items","total","page","size","pages"}          ?page=&size=
  /links       links.Page      the same plus "links": {"first","last","self","next","prev"} (relative)
  /offset      LimitOffsetPage {"items","total","limit","offset"}                ?limit=&offset=
  /cursor      CursorPage      {"items","total","current_page","current_page_backwards","previous_page","next_page"}
                               ?cursor=&size= (a keyset cursor over SQLAlchemy, sqlakeyset)
"""
import os, sys

import uvicorn
from fastapi import FastAPI
from fastapi_pagination import LimitOffsetPage, Page, add_pagination, paginate
from fastapi_pagination.utils import disable_installed_extensions_check
from fastapi_pagination.cursor import CursorPage
from fastapi_pagination.ext.sqlalchemy import paginate as paginate_query
from fastapi_pagination.links import Page as LinksPage
from pydantic import BaseModel
from sqlalchemy import Column, Integer, String, create_engine, select
from sqlalchemy.orm import Session, declarative_base
from sqlalchemy.pool import StaticPool

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dataset import rows  # noqa: E402


class Thing(BaseModel):
    id: int
    name: str
    kind: str
    price: str
    note: str | None


Base = declarative_base()


class ThingRow(Base):
    __tablename__ = "things"
    id = Column(Integer, primary_key=True)
    name = Column(String)
    kind = Column(String)
    price = Column(String)
    note = Column(String, nullable=True)


engine = create_engine("sqlite://", connect_args={"check_same_thread": False}, poolclass=StaticPool)
Base.metadata.create_all(engine)
with Session(engine) as session:
    session.add_all(ThingRow(**row) for row in rows())
    session.commit()

THINGS = [Thing(**row) for row in rows()]
disable_installed_extensions_check()
app = FastAPI()


@app.get("/page")
def page() -> Page[Thing]:
    return paginate(THINGS)


@app.get("/links")
def links() -> LinksPage[Thing]:
    return paginate(THINGS)


@app.get("/offset")
def offset() -> LimitOffsetPage[Thing]:
    return paginate(THINGS)


@app.get("/cursor")
def cursor() -> CursorPage[Thing]:
    with Session(engine) as session:
        return paginate_query(session, select(ThingRow).order_by(ThingRow.id))


add_pagination(app)

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
