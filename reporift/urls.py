from django.contrib import admin
from django.urls import include, path

from search.api import api
from search.hooks import push_webhook
from search.views import favicon
from tryouts.api import router as examples_router

api.add_router("/examples", examples_router)

urlpatterns = [
    path("admin/", admin.site.urls),
    # Browsers ask for it whatever the page links; the page links the SVG itself.
    path("favicon.ico", favicon),
    path("accounts/", include("django.contrib.auth.urls")),
    path("api/", api.urls),
    path("hooks/<str:provider>/<repo:name>", push_webhook, name="push_webhook"),
    path("examples/", include("tryouts.urls")),
    path("", include("accounts.urls")),
    path("", include("search.urls")),
]
