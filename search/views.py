import logging

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from indexing.models import Repository
from indexing.selectors import (
    can_manage,
    latest_run,
    repositories_visible_to,
    repository_for_management,
    with_latest_runs,
)
from indexing.services import (
    IndexingError,
    index_run_start,
    repository_create,
    repository_create_from_upload,
    repository_delete,
)
from indexing.tokens import api_token_create
from search.errors import search_unavailable_message
from search.forms import IndexRepositoryForm, SearchForm
from search.highlight import stylesheet
from search.presenters import result_for_page, stage_timings
from search.services import SearchError, search

logger = logging.getLogger(__name__)


def home(request):
    repositories = [
        {
            "repository": r,
            "latest_run": run,
            "can_manage": can_manage(user=request.user, repository=r),
        }
        for r, run in with_latest_runs(repositories_visible_to(request.user))
    ]
    return render(
        request,
        "search/home.html",
        {"repositories": repositories, "form": SearchForm(user=request.user)},
    )


def search_page(request):
    form = SearchForm(request.GET or None, user=request.user)
    context = {"form": form, "response": None, "results": [], "error": ""}
    if form.is_bound and form.is_valid() and form.cleaned_data["q"]:
        data = form.cleaned_data
        try:
            response = search(
                repository=data["repo"],
                query=data["q"],
                k=data.get("k") or 10,
                mode=data.get("mode") or "fast",
                filters=form.filters(),
            )
            context["response"] = response
            context["results"] = [result_for_page(r) for r in response.results]
            context["stage_timings"] = stage_timings(response)
        except SearchError as exc:
            context["error"] = str(exc)
        except Exception as exc:  # the store or model is down: say so, keep the page
            logger.exception("search failed")
            context["error"] = search_unavailable_message(exc)
    return render(request, "search/search.html", context)


def code_css(request):
    return HttpResponse(stylesheet(), content_type="text/css")


def run_progress(request, name: str):
    repository = get_object_or_404(repositories_visible_to(request.user), name=name)
    return render(
        request,
        "search/_run_progress.html",
        {"repository": repository, "run": latest_run(repository=repository)},
    )


@login_required
@require_http_methods(["GET", "POST"])
def repository_new(request):
    form = IndexRepositoryForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            if data.get("archive"):
                repository = repository_create_from_upload(
                    name=data["name"],
                    upload=data["archive"],
                    owner=request.user,
                    is_public=data["is_public"],
                )
            else:
                repository = repository_create(
                    name=data["name"],
                    source=data["git_url"],
                    source_kind=Repository.SourceKind.GIT,
                    ref=data.get("ref") or "",
                    owner=request.user,
                    is_public=data["is_public"],
                )
        except (IndexingError, ValidationError) as exc:
            form.add_error(None, exc.messages if isinstance(exc, ValidationError) else str(exc))
        else:
            index_run_start(repository=repository)
            messages.success(request, f"Indexing {repository.name} started.")
            return redirect("search:home")
    return render(request, "search/repository_new.html", {"form": form})


def _managed_repository(request, name: str) -> Repository:
    repository, status = repository_for_management(user=request.user, name=name)
    if status == 404:
        raise Http404(f"no repository named {name!r}")
    if status == 403:
        raise PermissionDenied("only the owner or staff may change this repository")
    return repository


@login_required
@require_POST
def repository_reindex(request, name: str):
    repository = _managed_repository(request, name)
    run = index_run_start(repository=repository)
    messages.success(request, f"Re-indexing {repository.name} (run {run.pk}).")
    return redirect("search:home")


@login_required
@require_POST
def repository_remove(request, name: str):
    repository = _managed_repository(request, name)
    repository_delete(repository=repository)
    messages.success(request, f"Deleted {name} and its index.")
    return redirect("search:home")


@login_required
@require_http_methods(["GET", "POST"])
def api_tokens(request):
    new_key = ""
    if request.method == "POST":
        name = (request.POST.get("name") or "token").strip()[:100]
        _, new_key = api_token_create(user=request.user, name=name)
    tokens = request.user.api_tokens.order_by("-created_at")
    return render(request, "search/api_tokens.html", {"tokens": tokens, "new_key": new_key})
