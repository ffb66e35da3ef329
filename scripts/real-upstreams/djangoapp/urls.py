from django.urls import path

from . import views
from .ninja_api import api as ninja_api

urlpatterns = [
    path("api/pages/", views.PageList.as_view()),
    path("api/offset/", views.OffsetList.as_view()),
    path("api/cursor/", views.CursorList.as_view()),
    path("jsonapi/things/", views.JSONAPIList.as_view()),
    path("ninja/", ninja_api.urls),
]
