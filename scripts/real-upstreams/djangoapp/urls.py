from django.urls import include, path

from . import views
from .ninja_api import api as ninja_api
from .tastypie_api import api as tastypie_api

urlpatterns = [
    path("api/pages/", views.PageList.as_view()),
    path("api/offset/", views.OffsetList.as_view()),
    path("api/cursor/", views.CursorList.as_view()),
    path("api/offset-capped/", views.CappedOffsetList.as_view()),
    path("api/pages-capped/", views.CappedPageList.as_view()),
    path("link/pages-capped/", views.CappedLinkPageList.as_view()),
    path("link/pages/", views.LinkPageList.as_view()),
    path("link/offset/", views.LinkOffsetList.as_view()),
    path("link/cursor/", views.LinkCursorList.as_view()),
    path("jsonapi/things/", views.JSONAPIList.as_view()),
    path("datatables/pages/", views.DatatablesList.as_view()),
    path("datatables/offset/", views.DatatablesOffsetList.as_view()),
    path("ninja/", ninja_api.urls),
    path("tastypie/", include(tastypie_api.urls)),
]
