import logging

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.templatetags.static import static
from django.views.decorators.http import require_http_methods, require_POST

from agents.selectors import full_mode_plan
from indexing.embedding import serving_embedder
from indexing.models import Repository
from indexing.selectors import (
    RepositoryRefused,
    can_manage,
    indexed_with_another_embedder,
    latest_run,
    repositories_visible_to,
    repository_for_management,
    shows_source,
    with_latest_runs,
)
from indexing.services import IndexingError, index_run_start, repository_delete, repository_submit
from indexing.sync import webhook_secret_rotate
from indexing.webhooks import PROVIDERS
from search.across import search_across
from search.errors import search_unavailable_message
from search.exact_presenters import lines_for_page
from search.file_groups import group_by_file
from search.filters import SearchFilters
from search.forms import IndexRepositoryForm, IssueForm, SearchForm, SimilarCodeForm
from search.highlight import stylesheet
from search.jobs import SearchJobRequest, job_owner, job_state, start_search_job
from search.presenters import (
    lead_notices,
    located_file_for_page,
    result_for_page,
    stage_timings,
)
from search.query_syntax import asks_for_lines
from search.ratelimit import client_address, llm_open, search_refusal
from search.services import SearchError
from search.similar import code_query, similar_across, unit_for_similar

logger = logging.getLogger(__name__)


def home(request):
    model_id, embedder_notice = serving_embedder()
    repositories = [
        {
            "repository": r,
            "latest_run": run,
            "can_manage": can_manage(user=request.user, repository=r),
            "shows_source": shows_source(user=request.user, repository=r),
            "stale_embedder": indexed_with_another_embedder(repository=r, model_id=model_id),
        }
        for r, run in with_latest_runs(repositories_visible_to(request.user))
    ]
    return render(
        request,
        "search/home.html",
        {
            "repositories": repositories,
            "form": SearchForm(user=request.user),
            "embedder_notice": embedder_notice,
            "full_mode_plan": full_mode_plan(),
        },
    )


def search_page(request):
    form = SearchForm(request.GET or None, user=request.user)
    context = {
        "form": form,
        "response": None,
        "results": [],
        "error": "",
        "full_mode_plan": full_mode_plan(),
        "llm_open": llm_open(request.user),
    }
    if form.is_bound and not form.is_valid():
        return render(request, "search/search.html", context, status=400)
    if form.is_bound and form.request is not None:
        data = {**form.cleaned_data, **form.request.values}
        if asks_for_lines(data["q"]):
            data["mode"] = "fast"  # matching lines need no LLM: exact search answers at once
        refusal = search_refusal(request, request.user, mode=data["mode"])
        if refusal is not None:
            context["error"] = refusal.message
            response = render(request, "search/search.html", context, status=refusal.status)
            if refusal.retry_after_s:
                response["Retry-After"] = str(refusal.retry_after_s)
            return response
        if data["mode"] == "full" and not data.get("repo"):
            context["error"] = "full mode searches one repository at a time; pick one"
            return render(request, "search/search.html", context, status=400)
        if data["mode"] == "full":
            # Seconds of LLM work: run it in the background and show its stages meanwhile.
            filters = form.filters()
            context["job_id"] = start_search_job(
                request=SearchJobRequest(
                    repository_id=data["repo"].pk,
                    query=data["q"],
                    k=data["k"],
                    mode="full",
                    path=filters.path,
                    kinds=filters.kinds,
                    exclude_tests=filters.exclude_tests,
                    languages=filters.languages,
                ),
                owner=job_owner(request.user, client_address(request)),
            )
            context["job"] = {"done": False, "stages": []}
            return render(request, "search/search.html", context)
        try:
            repositories = form.repositories()
            response = search_across(
                repositories=repositories,
                query=data["q"],
                k=data["k"],
                mode=data["mode"],
                filters=form.filters(),
                limit=data.get("limit"),
            )
            context["nothing_to_read"] = lead_notices(response, repositories=repositories)
            context["response"] = response
            if response.lines is not None:
                context["exact"] = lines_for_page(response.lines)
            context["results"] = [result_for_page(r, response.query) for r in response.results]
            if data.get("group") == "file":
                context["files"] = group_by_file(response.results)
            context["stage_timings"] = stage_timings(response)
            context["multiple_repositories"] = not data.get("repo")
        except SearchError as exc:
            context["error"] = str(exc)
        except Exception as exc:  # the store or model is down: say so, keep the page
            logger.exception("search failed")
            context["error"] = search_unavailable_message(exc)
    return render(request, "search/search.html", context)


@require_http_methods(["GET", "POST"])
def _form_refused(request, form, context: dict):
    """The page with the form's errors (400), or the caller's rate limit refusal; None when
    the request may go on."""
    if not form.is_valid():
        context["error"] = " ".join(e for errors in form.errors.values() for e in errors)
        return render(request, "search/search.html", context, status=400)
    refusal = search_refusal(request, request.user, mode=form.cleaned_data.get("mode") or "fast")
    if refusal is None:
        return None
    context["error"] = refusal.message
    response = render(request, "search/search.html", context, status=refusal.status)
    if refusal.retry_after_s:
        response["Retry-After"] = str(refusal.retry_after_s)
    return response


def _search_form_keeping(request) -> SearchForm:
    """The search form above another form's answer, with the repository that form was sent
    with chosen: people go on searching where they just looked."""
    data = request.POST if request.method == "POST" else request.GET
    return SearchForm(user=request.user, initial={"repo": data.get("repo") or None})


@require_POST
def locate_page(request):
    """Paste an issue, get the files to change (`search.locate`), on the search page."""
    from search.locate import clue_summary, locate_files

    form = IssueForm(request.POST, user=request.user)
    context = {
        "form": _search_form_keeping(request),
        "issue_form": form,
        "located": None,
        "error": "",
        "full_mode_plan": full_mode_plan(),
        "llm_open": llm_open(request.user),
    }
    if (refused := _form_refused(request, form, context)) is not None:
        return refused
    repository = form.cleaned_data["repo"]
    try:
        located = locate_files(repository=repository, **form.request.locate_arguments())
    except SearchError as exc:
        context["error"] = str(exc)
        return render(request, "search/search.html", context, status=400)
    except Exception as exc:  # the store or model is down: say so, keep the page
        logger.exception("locate failed")
        context["error"] = search_unavailable_message(exc)
        return render(request, "search/search.html", context)
    focus = " ".join([located.clues.title, *located.clues.names[:20]])
    context |= {
        "located": located,
        "repository": repository,
        "clue_summary": clue_summary(located.clues),
        "located_files": [located_file_for_page(f, focus) for f in located.files],
    }
    return render(request, "search/search.html", context)


def similar_page(request):
    """Code like a pasted snippet (POST) or like a result (`?like=<unit id>`, GET)."""
    form = SimilarCodeForm(
        request.POST if request.method == "POST" else request.GET, user=request.user
    )
    context = {
        "form": _search_form_keeping(request),
        "similar_form": form,
        "response": None,
        "results": [],
        "error": "",
        "full_mode_plan": full_mode_plan(),
        "llm_open": llm_open(request.user),
    }
    if (refused := _form_refused(request, form, context)) is not None:
        return refused
    data = form.cleaned_data
    repositories = form.repositories()
    try:
        unit = None
        if data.get("like"):
            unit = unit_for_similar(repositories=repositories, unit_id=data["like"])
        response = similar_across(
            repositories=repositories,
            query=code_query(code=data.get("code") or "", unit=unit),
            k=data.get("k") or 10,
            filters=SearchFilters(exclude_tests=bool(data.get("exclude_tests"))),
        )
    except SearchError as exc:
        context["error"] = str(exc)
        return render(request, "search/search.html", context, status=400)
    except Exception as exc:  # the store or model is down: say so, keep the page
        logger.exception("similar-code search failed")
        context["error"] = search_unavailable_message(exc)
        return render(request, "search/search.html", context)
    context["nothing_to_read"] = lead_notices(response, repositories=repositories, similar=True)
    context["response"] = response
    context["results"] = [result_for_page(r, response.query) for r in response.results]
    context["stage_timings"] = stage_timings(response)
    context["multiple_repositories"] = len(repositories) > 1
    return render(request, "search/search.html", context)


def search_job(request, job_id: str):
    """A full-mode search's progress (polled by the page), then its results."""
    job = job_state(job_id=job_id, owner=job_owner(request.user, client_address(request)))
    if job is None:
        raise Http404("no such search (it may have expired)")
    return render(
        request,
        "search/_job.html",
        {"job": job, "job_id": job_id, "full_mode_plan": full_mode_plan()},
    )


def favicon(request):
    """Browsers ask for /favicon.ico whatever the page links (the page links the SVG)."""
    return redirect(static("favicon.svg"), permanent=True)


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
            run = repository_submit(
                user=request.user,
                name=data["name"],
                git_url=data.get("git_url") or "",
                ref=data.get("ref") or "",
                archive=data.get("archive"),
                is_public=data["is_public"],
            )
        except IndexingError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"Indexing {run.repository.name} started ({run.label}).")
            return redirect("search:home")
    return render(request, "search/repository_new.html", {"form": form})


def _managed_repository(request, name: str) -> Repository:
    try:
        return repository_for_management(user=request.user, name=name)
    except RepositoryRefused as exc:
        raise (Http404 if exc.status == 404 else PermissionDenied)(str(exc)) from exc


@login_required
@require_POST
def repository_reindex(request, name: str):
    repository = _managed_repository(request, name)
    run = index_run_start(repository=repository)
    messages.success(request, f"Re-indexing {repository.name} ({run.label}).")
    return redirect("search:home")


@login_required
@require_POST
def repository_webhook(request, name: str):
    """A new push-webhook secret, shown once, on this page only (never in a message, which
    would travel in a cookie)."""
    repository = _managed_repository(request, name)
    secret = webhook_secret_rotate(repository=repository)
    hooks = {
        provider: request.build_absolute_uri(f"/hooks/{provider}/{repository.name}")
        for provider in PROVIDERS
    }
    return render(
        request,
        "search/webhook_secret.html",
        {"repository": repository, "secret": secret, "hooks": hooks},
    )


@login_required
@require_POST
def repository_remove(request, name: str):
    repository = _managed_repository(request, name)
    repository_delete(repository=repository)
    messages.success(request, f"Deleted {name} and its index.")
    return redirect("search:home")
