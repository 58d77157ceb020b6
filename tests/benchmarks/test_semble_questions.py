"""The peer's "definition first" on line chunks: a name typed as a query is defined in the
chunk, in Python and in the other question sets' languages; a mere call or mention is not."""

import pytest

from benchmarks.semble_questions import defines


@pytest.mark.parametrize(
    "query, content, language",
    [
        ("Task.retry", "    def retry(self, args=None):", ""),
        ("rcParams", "rcParams = RcParams()", ""),
        ("Client.acquireConnection", "  async acquireConnection() {", "javascript"),
        ("makeKnex", "function makeKnex(client) {", "javascript"),
        ("Router.Handle", "func (a *App) Handle(ctx *Context) error {", "go"),
        ("Itertools::kmerge", "    fn kmerge(self) -> KMerge<Self::Item>", "rust"),
        ("Twig\\Environment::render", "    public function render($name, array $context = [])",
         "php"),
        ("Thor::Options#parse", "    def parse(args) # rubocop:disable", "ruby"),
        ("tablex.deepcompare", "function tablex.deepcompare(t1,t2,ignore_mt,eps)", "lua"),
        ("_init_completion", "_init_completion()", "bash"),
        ("ImagingNew", "ImagingNew(const char *mode, int xsize, int ysize) {", "c"),
        ("Observable", "export class Observable<T> implements IObservable {", "typescript"),
    ],
)  # fmt: skip
def test_a_definition_of_the_name_is_seen(query, content, language):
    assert defines(query, content, language)


@pytest.mark.parametrize(
    "query, content, language",
    [
        ("Task.retry", "        return self.retry(exc=exc)", ""),
        ("makeKnex", "const knex = makeKnex(client);", "javascript"),
        ("ImagingNew", "    im = ImagingNew(mode, xsize, ysize);", "c"),
        ("kmerge", "    fn kmerge_by(self) -> KMergeBy<Self::Item>", "rust"),
    ],
)
def test_a_call_or_another_name_is_not(query, content, language):
    assert not defines(query, content, language)


@pytest.mark.parametrize(
    "text, shell",
    [
        ("#!/bin/bash\necho hi\n", True),
        ("#!/usr/bin/env sh\necho hi\n", True),
        ("#   -*- shell-script -*-\n_init() { :; }\n", True),
        ("# ex: filetype=sh\n_foo() { :; }\n", True),
        # RepoRift reads a file's first lines only: a mark further down does not make it Bash.
        ("_foo() { :; } &&\n    complete -F _foo foo\n\n# ex: filetype=sh\n", False),
        ("#!/usr/bin/env python3\nprint('hi')\n", False),
        ("plain notes\n", False),
    ],
)
def test_semble_is_given_the_extensionless_files_reporift_reads_as_bash(tmp_path, text, shell):
    from benchmarks.semble_questions import _is_shell

    script = tmp_path / "script"
    script.write_text(text)
    assert _is_shell(script) is shell
