from django.contrib import admin
from django.urls import include, path

from search.api import api

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("api/", api.urls),
    path("", include("accounts.urls")),
    path("", include("search.urls")),
]
