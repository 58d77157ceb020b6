from django.contrib import admin
from django.urls import include, path

from search.api import api
from search.hooks import push_webhook
from tryouts.api import router as examples_router

api.add_router("/examples", examples_router)

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("api/", api.urls),
    path("hooks/<str:provider>/<slug:name>", push_webhook, name="push_webhook"),
    path("examples/", include("tryouts.urls")),
    path("", include("accounts.urls")),
    path("", include("search.urls")),
]
