"""Running paid work: the jobs of the paid stages (predict, judge, extract) and how they run.

``riddles`` and ``exams`` define the jobs (one model on one benchmark each), ``names`` names them
(one function, read by the stages, the dry run and ``sideways status``), ``coarse`` reuses a job
whose inputs did not change, ``fanout`` puts every job of a stage in flight at once, ``extract``
is the extract stage's run, ``context`` the settings every job shares. Backends live in
``sideways.backends``; this package only runs them.
"""
