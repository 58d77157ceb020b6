"""Definitions a grammar loses to a syntax error, found again by parsing the damaged stretch
of the file in pieces (indexing.parse_recovery, driven by each language's `definition_starts`)."""

from tree_sitter import Parser

from indexing.languages import language_for_path
from indexing.parsing import FUNCTION, MODULE, parse_source

# A bash regex with `\\[([^]]*)` and a comment holding `${array[i` throw tree-sitter-bash off
# until the end of the next function (as in bash-completion's `_variables`).
BASH = """# Completes variable names, and the members of an array: `${array[i`.
_variable_names()
{
    if [[ $cur =~ ^(\\$(\\{[!#]?)?)([A-Za-z0-9_]*)$ ]]; then
        if [[ $cur == '${'* ]]; then
            if ((${#vars[@]} == 1 && ${#arrs[@]} != 0)); then
                COMPREPLY+=(${vars[*]})
            fi
        fi
    elif [[ $cur =~ ^(\\$\\{[#!]?)([A-Za-z0-9_]*)\\[([^]]*)$ ]]; then
        # Turn ${array[i into ${array[idx]}
        if [[ ${BASH_REMATCH[3]} == [@*] ]]; then
            COMPREPLY+=("${BASH_REMATCH[1]}${BASH_REMATCH[2]}[${BASH_REMATCH[3]}]}")
        fi
    fi
}

# Completes user names.
_user_names()
{
    COMPREPLY=($(compgen -u -- "$cur"))
}

# Completes redirections: `2>`, `>&`, `<`.
_redirections()
{
    local redir="@(?([0-9])<|?([0-9&])>?(>)|>&)"
    [[ $cur == $redir* ]] && COMPREPLY=($(compgen -f -- "${cur#$redir}"))
}
complete -F _user_names su
"""

# A call signature after a comment in an interface: tree-sitter-typescript makes the whole
# file one ERROR node (as mobx's api/action.ts).
TYPESCRIPT = """import { Annotation, createAction, executeAction } from "./internal"

export const ACTION = "action"

export interface IActionFactory {
    // nameless actions
    <T extends Function | undefined | null>(fn: T): T
    // named actions
    <T extends Function | undefined | null>(name: string, fn: T): T

    // named annotation
    (customName: string): Annotation
}

function createActionFactory(autoAction: boolean): IActionFactory {
    const res: IActionFactory = function action(arg1, arg2?): any {
        if (arg2 && typeof arg2.kind === "string") {
            return createAction(arg2.kind, arg1, autoAction)
        }
        // action("name", fn() {})
        return createAction(arg1, arg2, autoAction)
    } as IActionFactory
    return res
}

export const action: IActionFactory = createActionFactory(false)

/** Runs `fn` as an action, right away. */
export function runInAction<T>(fn: () => T): T {
    return executeAction(fn.name, false, fn, this, undefined)
}

export function isAction(thing: any) {
    return thing.isMobxAction === true
}
"""

# An object literal of messages, some of them functions named by their number (mobx's errors.ts).
MESSAGES = """export const niceErrors = {
    0: `Invalid value for configuration 'enforceActions'`,
    1(annotationType, key: PropertyKey) {
        return `Cannot apply '${annotationType}' to '${key.toString()}'`
    },
    19(other) {
        return "Cannot initialize from classes that inherit from Map: " + other.constructor.name
    },
    describe(code) {
        return `error ${code}`
    }
}

export function die(error: string | number): never {
    throw new Error(typeof error === "number" ? niceErrors[error] : error)
}
"""


def _tree_functions(source: str, path: str) -> set[str]:
    """What the grammar alone makes definitions of: the names of its function nodes."""
    root = Parser(language_for_path(path).language()).parse(source.encode()).root_node
    names, stack = set(), [root]
    while stack:
        node = stack.pop()
        name = node.child_by_field_name("name")
        if node.type in ("function_definition", "function_declaration") and name is not None:
            names.add(name.text.decode())
        stack.extend(node.children)
    return names


def _spans(parsed):
    return {unit.qualname: (unit.kind, unit.start_line, unit.end_line) for unit in parsed.units}


def _assert_each_line_in_one_unit(parsed, source: str) -> None:
    owners = [0] * (source.count("\n") + 2)
    for unit in parsed.units:
        if not unit.parent_qualname:
            for line in range(unit.start_line, unit.end_line + 1):
                owners[line] += 1
    for number, line in enumerate(source.split("\n"), start=1):
        assert owners[number] == (1 if line.strip() else owners[number]) and owners[number] <= 1


def test_bash_functions_after_a_construct_the_grammar_cannot_parse_are_found():
    assert "_user_names" not in _tree_functions(BASH, "words.bash")
    parsed = parse_source(BASH.encode(), path="words.bash")
    assert parsed.has_errors
    spans = _spans(parsed)
    assert spans["_user_names"] == (FUNCTION, 18, 22)
    assert spans["_redirections"] == (FUNCTION, 24, 29)
    # The broken function itself: from its doc comment to its closing brace.
    assert spans["_variable_names"] == (FUNCTION, 1, 16)
    unit = next(u for u in parsed.units if u.qualname == "_variable_names")
    assert unit.docstring.startswith("Completes variable names")
    assert "COMPREPLY+=(${vars[*]})" in unit.code
    _assert_each_line_in_one_unit(parsed, BASH)


def test_typescript_file_parsed_as_one_error_keeps_its_functions():
    root = Parser(language_for_path("factory.ts").language()).parse(TYPESCRIPT.encode())
    assert root.root_node.type == "ERROR"
    parsed = parse_source(TYPESCRIPT.encode(), path="src/api/factory.ts")
    spans = _spans(parsed)
    assert spans["createActionFactory"] == (FUNCTION, 15, 24)
    assert spans["createActionFactory.action"] == (FUNCTION, 16, 22)
    assert spans["runInAction"] == (FUNCTION, 28, 31)
    assert spans["isAction"] == (FUNCTION, 33, 35)
    assert spans["IActionFactory"][1:] == (5, 13)
    run = next(u for u in parsed.units if u.qualname == "runInAction")
    assert run.docstring == "Runs `fn` as an action, right away."
    _assert_each_line_in_one_unit(parsed, TYPESCRIPT)


def test_members_named_by_a_number_stay_in_their_block():
    parsed = parse_source(MESSAGES.encode(), path="src/messages.ts")
    spans = _spans(parsed)
    assert "1" not in spans and "19" not in spans
    assert spans["describe"] == (FUNCTION, 9, 11)
    block = next(u for u in parsed.units if u.kind == MODULE and u.start_line == 1)
    assert block.end_line == 8 and "Cannot initialize from classes" in block.code
    _assert_each_line_in_one_unit(parsed, MESSAGES)
