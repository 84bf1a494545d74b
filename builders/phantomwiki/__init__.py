"""PhantomWiki: fictional universes, their articles, multi-hop questions and exact answers."""
