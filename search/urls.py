from django.urls import path

from search import views

app_name = "search"
urlpatterns = [
    path("", views.home, name="home"),
    path("repos/<slug:name>/progress/", views.run_progress, name="run_progress"),
]
