from django.urls import path

from tryouts import views

app_name = "tryouts"
urlpatterns = [
    path("units/<int:unit_id>/", views.example_start, name="start"),
    path("<int:example_id>/", views.example_state, name="state"),
    path("<int:example_id>/cancel/", views.example_stop, name="cancel"),
]
