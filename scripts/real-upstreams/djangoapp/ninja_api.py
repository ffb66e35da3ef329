"""django-ninja's pagination, as its docs set it up: `@paginate` on a list of a Schema, mounted at /ninja/.

  /ninja/offset   LimitOffsetPagination   {"items": [...], "count": N}  ?limit=&offset= (limit default 100)
  /ninja/pages    PageNumberPagination    {"items": [...], "count": N}  ?page=&page_size= (size default 100)
"""
from decimal import Decimal
from typing import List, Optional

from ninja import NinjaAPI, Schema
from ninja.pagination import LimitOffsetPagination, PageNumberPagination, paginate

from .models import Thing

api = NinjaAPI(urls_namespace="ninja")


class ThingOut(Schema):
    id: int
    name: str
    kind: str
    price: Decimal  # the model's DecimalField; written as a string, as DRF writes it
    note: Optional[str]


@api.get("/offset", response=List[ThingOut])
@paginate(LimitOffsetPagination)
def offset(request):
    return Thing.objects.order_by("id")


@api.get("/pages", response=List[ThingOut])
@paginate(PageNumberPagination, page_size=100)
def pages(request):
    return Thing.objects.order_by("id")
