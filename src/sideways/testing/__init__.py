"""Test doubles shipped with the package, the ones the docs tell a user to run: a fake OpenAI-compatible server
(openai_server) and fake provider Batch APIs (fake_batch_provider), for tests, benchmarks and demos. The research
harnesses the benchmarks and tests share are not shipped: they are ``lab``, in benchmarks/lab."""
