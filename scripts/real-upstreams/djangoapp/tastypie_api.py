"""django-tastypie's ModelResource as its tutorial writes it: /tastypie/v1/thing/ with Tastypie's own Paginator,
{"meta": {"limit": 100, "next": "/tastypie/v1/thing/?limit=100&offset=100", "offset": 0, "previous": null,
"total_count": 1000}, "objects": [...]}: next as an absolute path, ?limit=0 meaning "all" (up to API_LIMIT_PER_PAGE's
max_limit, 1000 by default)."""
from tastypie.api import Api
from tastypie.resources import ModelResource

from .models import Thing


class ThingResource(ModelResource):
    class Meta:
        queryset = Thing.objects.all()
        resource_name = "thing"
        limit = 100
        allowed_methods = ["get"]
        ordering = ["id"]


class CappedThingResource(ThingResource):
    """real18: Tastypie's `max_limit` below what a route asks: ?limit=100 is read as 7, meta.limit and next say 7."""
    class Meta(ThingResource.Meta):
        resource_name = "capped"
        max_limit = 7


api = Api(api_name="v1")
api.register(ThingResource())
api.register(CappedThingResource())
