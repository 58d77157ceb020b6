import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reporift.settings")
application = get_wsgi_application()

from search.warmup import warm_up_in_background  # noqa: E402  (needs Django set up)

warm_up_in_background()
