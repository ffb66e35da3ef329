"""Wagtail's API v2 router with its pages endpoint, as the docs' "Enable the app" and "Configure endpoints" write it."""
from django.urls import path
from wagtail.api.v2.router import WagtailAPIRouter
from wagtail.api.v2.views import PagesAPIViewSet

api_router = WagtailAPIRouter("wagtailapi")
api_router.register_endpoint("pages", PagesAPIViewSet)

urlpatterns = [path("api/v2/", api_router.urls)]
