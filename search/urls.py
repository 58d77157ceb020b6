from django.urls import path

from search import views

app_name = "search"
urlpatterns = [
    path("", views.home, name="home"),
    path("search/", views.search_page, name="search"),
    path("similar/", views.similar_page, name="similar"),
    path("locate/", views.locate_page, name="locate"),
    path("search/jobs/<slug:job_id>/", views.search_job, name="search_job"),
    path("code.css", views.code_css, name="code_css"),
    path("repos/new/", views.repository_new, name="repository_new"),
    path("repos/<repo:name>/progress/", views.run_progress, name="run_progress"),
    path("repos/<repo:name>/reindex/", views.repository_reindex, name="repository_reindex"),
    path("repos/<repo:name>/delete/", views.repository_remove, name="repository_remove"),
    path("repos/<repo:name>/webhook/", views.repository_webhook, name="repository_webhook"),
]
