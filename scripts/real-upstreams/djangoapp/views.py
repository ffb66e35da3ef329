from rest_framework import generics, pagination, serializers
from drf_link_header_pagination import LinkHeaderCursorPagination, LinkHeaderLimitOffsetPagination, LinkHeaderPagination
from rest_framework.renderers import JSONRenderer
from rest_framework_datatables.filters import DatatablesFilterBackend
from rest_framework_datatables.pagination import DatatablesLimitOffsetPagination, DatatablesPageNumberPagination
from rest_framework_datatables.renderers import DatatablesRenderer
from rest_framework_json_api import pagination as jsonapi_pagination
from rest_framework_json_api import parsers as jsonapi_parsers
from rest_framework_json_api import renderers as jsonapi_renderers
from rest_framework_json_api import serializers as jsonapi_serializers

from .models import Thing


class ThingSerializer(serializers.ModelSerializer):
    class Meta:
        model = Thing
        fields = ["id", "name", "kind", "price", "note"]


class Pages(pagination.PageNumberPagination):
    page_size = 100
    page_size_query_param = "page_size"


class Offsets(pagination.LimitOffsetPagination):
    default_limit = 100


class Cursors(pagination.CursorPagination):
    page_size = 100
    ordering = "id"


class PageList(generics.ListAPIView):
    queryset = Thing.objects.all()
    serializer_class = ThingSerializer
    pagination_class = Pages


class OffsetList(PageList):
    pagination_class = Offsets


# real18: the same classes with a cap below what a route asks, as their docs offer it. LimitOffsetPagination's
# `max_limit` reads ?limit=100 as 7 (no ?limit= is still its default_limit, 100) and its next link says limit=7;
# PageNumberPagination's `max_page_size` reads ?page_size=100 as 7, its next link keeping page_size=100.
class CappedOffsets(pagination.LimitOffsetPagination):
    default_limit = 100
    max_limit = 7


class PageSizeCap:
    """?page_size=100 read as 7 (`max_page_size`); mixed in before a page-number class."""
    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = 7


class CappedPages(PageSizeCap, pagination.PageNumberPagination):
    pass


class CappedOffsetList(PageList):
    pagination_class = CappedOffsets


class CappedPageList(PageList):
    pagination_class = CappedPages


class CursorList(PageList):
    pagination_class = Cursors


class JSONAPIThingSerializer(jsonapi_serializers.ModelSerializer):
    class Meta:
        model = Thing
        fields = ["name", "kind", "price", "note"]


class JSONAPIPages(jsonapi_pagination.JsonApiPageNumberPagination):
    page_size = 100


class JSONAPIList(generics.ListAPIView):
    """The library's recommended setup: its renderer and parser only, so only application/vnd.api+json is offered."""
    queryset = Thing.objects.all()
    serializer_class = JSONAPIThingSerializer
    pagination_class = JSONAPIPages
    renderer_classes = [jsonapi_renderers.JSONRenderer]
    parser_classes = [jsonapi_parsers.JSONParser]
    resource_name = "things"


# drf-link-header-pagination: a bare array, the links only in an RFC 8288 `Link` header (rel prev/next/first/last).
class LinkPages(LinkHeaderPagination):
    page_size = 100
    page_size_query_param = "page_size"


class LinkOffsets(LinkHeaderLimitOffsetPagination):
    default_limit = 100


class LinkCursors(LinkHeaderCursorPagination):
    page_size = 100
    ordering = "id"


class LinkPageList(PageList):
    pagination_class = LinkPages


class CappedLinkPages(PageSizeCap, LinkHeaderPagination):
    """real18: the Link header's next and last keep page_size=100."""


class CappedLinkPageList(PageList):
    pagination_class = CappedLinkPages


class LinkOffsetList(PageList):
    pagination_class = LinkOffsets


class LinkCursorList(PageList):
    pagination_class = LinkCursors


# djangorestframework-datatables (real15), as its docs' "Quickstart" sets it up, per view instead of in settings: its
# renderer beside DRF's JSON one, its filter backend and its page-number pagination (50 by default, the docs'
# PAGE_SIZE). `?format=datatables&start=&length=`: `start` an item offset read as the page `start // length + 1`.
class DatatablesPages(DatatablesPageNumberPagination):
    page_size = 50


class DatatablesList(PageList):
    renderer_classes = [JSONRenderer, DatatablesRenderer]
    filter_backends = [DatatablesFilterBackend]
    pagination_class = DatatablesPages


class DatatablesOffsets(DatatablesLimitOffsetPagination):
    default_limit = 50


class DatatablesOffsetList(DatatablesList):
    pagination_class = DatatablesOffsets
