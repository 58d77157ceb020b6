import pytest

from indexing.checkout import materialize, module_of, package_prefix

pytestmark = pytest.mark.django_db


def test_code_copy_and_module_names(shop, tmp_path):
    prefix = materialize(repository=shop, target=tmp_path)
    assert prefix == ""  # shop's root is not itself a package
    assert "def retry_http_call" in (tmp_path / "shop" / "payments.py").read_text()
    assert module_of("shop/payments.py", "") == "shop.payments"
    shop.source = "/site-packages/urllib3"
    assert package_prefix(shop, ["__init__.py", "api.py"]) == "urllib3"
    assert module_of("poolmanager.py", "urllib3") == "urllib3.poolmanager"
    assert module_of("sub/__init__.py", "urllib3") == "urllib3.sub"
