"""Integrations with crawlers (optional extras): each module imports its crawler's package.

- ``consumer.integrations.scrapy``: a Scrapy extension that writes every downloaded response to the
  landing topic (``pip install 'crawl-decoder[scrapy]'``).
"""
