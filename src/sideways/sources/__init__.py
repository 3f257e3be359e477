"""Where real riddles come from: the published Hugging Face dataset and the Layton wiki.

Each source turns its raw material into rows shaped like :data:`sideways.schema.RIDDLES`;
:mod:`sideways.curation` then decides which rows are kept and in which split.
"""
