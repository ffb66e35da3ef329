"""Litestar's three pagination return types on uvicorn, as its docs ("Pagination") set them up.

    python litestar_server.py PORT

Routes (1000 items; the docs' handlers take their parameters without defaults: the client names them all):
  /classic   ClassicPagination  {"items","page_size","current_page","total_pages"}  ?page_size=&current_page=
  /offset    OffsetPagination   {"items","limit","offset","total"}                  ?limit=&offset=
  /cursor    CursorPagination   {"items","results_per_page","cursor"}               ?results_per_page=&cursor=
             (the cursor is the next page's; null on the last page)
msgspec writes compact JSON, non-ASCII as UTF-8.
"""
import os, sys
from dataclasses import dataclass
from typing import List, Optional, Tuple

import uvicorn
from litestar import Litestar, get
from litestar.pagination import (AbstractSyncClassicPaginator, AbstractSyncCursorPaginator,
                                 AbstractSyncOffsetPaginator, ClassicPagination, CursorPagination, OffsetPagination)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dataset import rows  # noqa: E402


@dataclass
class Thing:
    id: int
    name: str
    kind: str
    price: str
    note: Optional[str]


THINGS = [Thing(**row) for row in rows()]


class ThingClassicPaginator(AbstractSyncClassicPaginator[Thing]):
    def get_total(self, page_size: int) -> int:
        return -(-len(THINGS) // page_size)

    def get_items(self, page_size: int, current_page: int) -> List[Thing]:
        start = (current_page - 1) * page_size
        return THINGS[start:start + page_size]


class ThingOffsetPaginator(AbstractSyncOffsetPaginator[Thing]):
    def get_total(self) -> int:
        return len(THINGS)

    def get_items(self, limit: int, offset: int) -> List[Thing]:
        return THINGS[offset:offset + limit]


class ThingCursorPaginator(AbstractSyncCursorPaginator[str, Thing]):
    """The cursor is the id of the last item sent, as a string."""

    def get_items(self, cursor: Optional[str], results_per_page: int) -> Tuple[List[Thing], Optional[str]]:
        after = int(cursor) if cursor else 0
        page = [thing for thing in THINGS if thing.id > after][:results_per_page]
        more = page and page[-1].id < THINGS[-1].id
        return page, (str(page[-1].id) if more else None)


@get("/classic", sync_to_thread=False)
def classic(page_size: int, current_page: int) -> ClassicPagination[Thing]:
    return ThingClassicPaginator()(page_size=page_size, current_page=current_page)


@get("/offset", sync_to_thread=False)
def offset(limit: int, offset: int) -> OffsetPagination[Thing]:
    return ThingOffsetPaginator()(limit=limit, offset=offset)


@get("/cursor", sync_to_thread=False)
def cursor(results_per_page: int, cursor: Optional[str] = None) -> CursorPagination[str, Thing]:
    return ThingCursorPaginator()(cursor=cursor, results_per_page=results_per_page)


app = Litestar(route_handlers=[classic, offset, cursor])

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
