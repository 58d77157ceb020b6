from django.shortcuts import get_object_or_404, render

from indexing.models import Repository
from indexing.selectors import latest_run, repository_list


def home(request):
    repositories = [
        {"repository": r, "latest_run": latest_run(repository=r)} for r in repository_list()
    ]
    return render(request, "search/home.html", {"repositories": repositories})


def run_progress(request, name: str):
    repository = get_object_or_404(Repository, name=name)
    return render(
        request,
        "search/_run_progress.html",
        {"repository": repository, "run": latest_run(repository=repository)},
    )
