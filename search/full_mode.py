"""Full mode: the streams that need the LLM, and the reranker. Filled in with the agents."""
