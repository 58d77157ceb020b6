from django.urls import path

from accounts import views

app_name = "accounts"
urlpatterns = [
    path("account/tokens/", views.api_tokens, name="api_tokens"),
    path(
        "account/tokens/<int:token_id>/revoke/",
        views.api_token_revoke_view,
        name="api_token_revoke",
    ),
]
