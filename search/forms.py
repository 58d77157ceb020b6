from django import forms

from indexing.models import CodeUnit, Repository
from indexing.repository_names import MAX_LENGTH, validate_repository_name
from indexing.selectors import repositories_visible_to
from search.filters import SearchFilters, known_languages
from search.params import (
    LOCATE_PARAMS,
    SEARCH_PARAMS,
    ParamError,
    search_params,
    unknown_repository_message,
)


class _RepositoryChoice(forms.ModelChoiceField):
    """A repository by name; an unknown name is answered with the closest names there are."""

    def to_python(self, value):
        try:
            return super().to_python(value)
        except forms.ValidationError:
            names = self.queryset.values_list("name", flat=True)
            raise forms.ValidationError(unknown_repository_message(str(value), names)) from None


class _VisibleRepositories(forms.Form):
    """A `repo` choice among the repositories this user may search."""

    repo = _RepositoryChoice(
        queryset=Repository.objects.none(),
        to_field_name="name",
        required=False,
        empty_label="all repositories",
    )

    def __init__(self, *args, user=None, **kwargs):
        super().__init__(*args, **kwargs)
        # Only what this user may search; a private repository's name is never revealed.
        self.fields["repo"].queryset = repositories_visible_to(user).filter(
            active_run__isnull=False
        )

    def repositories(self) -> list[Repository]:
        """The chosen repository, or every one this user may search."""
        chosen = self.cleaned_data.get("repo")
        return [chosen] if chosen else list(self.fields["repo"].queryset)


class _Unchecked(forms.MultipleChoiceField):
    """Choices for the page to render; `search.params` checks the values, with the words every
    other client gets."""

    def validate(self, value):
        pass


class SearchForm(_VisibleRepositories):
    """The page's search: the fields render the form, `search.params` checks what was sent."""

    q = forms.CharField(required=False, strip=True)
    mode = forms.CharField(required=False)
    k = forms.CharField(required=False)
    path = forms.CharField(required=False, strip=True)
    kind = _Unchecked(choices=CodeUnit.Kind.choices, required=False)
    exclude_tests = forms.BooleanField(required=False)
    lang = _Unchecked(required=False)
    group = forms.CharField(required=False)  # "file": files ranked, each with its best units

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["lang"].choices = [(name, name) for name in known_languages()]

    def clean(self):
        data = super().clean()
        self.request = None
        if not data.get("q"):
            return data  # the form alone, nothing asked yet
        try:
            self.request = search_params(
                {name: data.get(name) for name in (p.name for p in SEARCH_PARAMS)}
            )
        except ParamError as exc:
            raise forms.ValidationError(str(exc)) from None
        return data

    def filters(self) -> SearchFilters:
        return self.request.filters if self.request else SearchFilters()


class SimilarCodeForm(_VisibleRepositories):
    """Code like a pasted snippet (posted: a snippet outgrows a URL) or like an indexed unit
    (`like`, a link on every result), in one repository or every one the user may see."""

    code = forms.CharField(required=False, strip=False, widget=forms.Textarea)
    like = forms.IntegerField(min_value=1, required=False)
    k = forms.IntegerField(min_value=1, max_value=100, initial=10, required=False)
    exclude_tests = forms.BooleanField(required=False)

    def clean(self):
        data = super().clean()
        if not (data.get("code") or "").strip() and not data.get("like"):
            raise forms.ValidationError("paste some code, or pick a result's “similar code”")
        return data


class IssueForm(_VisibleRepositories):
    """The page's "paste an issue": one repository, the issue as written; `search.params`
    checks the values (its limit message is the API's, MCP's and the CLI's)."""

    issue = forms.CharField(required=False, strip=False)
    k = forms.CharField(required=False)
    exclude_tests = forms.BooleanField(required=False)

    def clean(self):
        data = super().clean()
        if not data.get("repo"):
            raise forms.ValidationError("pick the repository to look in")
        # A browser sends a text box's line breaks as CRLF: counted as one, as the page counts
        # them against the limit (and as the API's clients send them).
        data["issue"] = (data.get("issue") or "").replace("\r\n", "\n")
        try:
            self.request = search_params(
                {name: data.get(name) for name in ("issue", "k", "exclude_tests")}, LOCATE_PARAMS
            )
        except ParamError as exc:
            raise forms.ValidationError(str(exc)) from None
        return data


class IndexRepositoryForm(forms.Form):
    name = forms.CharField(max_length=MAX_LENGTH, validators=[validate_repository_name])
    git_url = forms.CharField(max_length=1000, required=False, label="Git URL")
    ref = forms.CharField(max_length=200, required=False, label="Branch, tag or commit")
    archive = forms.FileField(required=False, help_text=".zip, .tar.gz or .tgz")
    is_public = forms.BooleanField(required=False, initial=True)

    # Field types only: what may be indexed is decided by indexing.services.repository_submit,
    # the same for this page and the API.
