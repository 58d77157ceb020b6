from django import forms

from indexing.models import CodeUnit, Repository
from indexing.selectors import repositories_visible_to
from search.services import MODES, SearchFilters


class _VisibleRepositories(forms.Form):
    """A `repo` choice among the repositories this user may search."""

    repo = forms.ModelChoiceField(
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


class SearchForm(_VisibleRepositories):
    q = forms.CharField(max_length=1000, required=False, strip=True)
    mode = forms.ChoiceField(choices=[(m, m) for m in MODES], initial="fast", required=False)
    k = forms.IntegerField(min_value=1, max_value=100, initial=10, required=False)
    path = forms.CharField(max_length=500, required=False, strip=True)
    kind = forms.MultipleChoiceField(choices=CodeUnit.Kind.choices, required=False)
    exclude_tests = forms.BooleanField(required=False)

    def filters(self) -> SearchFilters:
        data = self.cleaned_data
        return SearchFilters(
            path=data.get("path") or "",
            kinds=tuple(data.get("kind") or ()),
            exclude_tests=bool(data.get("exclude_tests")),
        )


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


class IndexRepositoryForm(forms.Form):
    name = forms.SlugField(max_length=100)
    git_url = forms.CharField(max_length=1000, required=False, label="Git URL")
    ref = forms.CharField(max_length=200, required=False, label="Branch, tag or commit")
    archive = forms.FileField(required=False, help_text=".zip, .tar.gz or .tgz")
    is_public = forms.BooleanField(required=False, initial=True)

    # Field types only: what may be indexed is decided by indexing.services.repository_submit,
    # the same for this page and the API.
