"""The coalition simulation's state layout: fields of the int64 state arrays, rule codes, the kernels' tuples.

``ent`` (E, N_ENT_FIELDS), one row per entity: NOW (time of its last update), FREE machines, VALUE = Σ_u ψ_u and
WORK_TOTAL = Σ_u W_u at NOW, HEAP_SIZE, RUNNING_TOTAL, MASK (members' bits), MACHINES m(C), HEAP_OFF (start of
its rows in ``running``), RULE, GROUP = 2·|C| + RULE (the processing order within one time step).
``mem`` (E, N_MEM_FIELDS, k): per member RUN (running jobs), STARTED (jobs started = FIFO head pointer), PSI, WORK.
``running`` (Σ_C m(C), 2): entity e's running jobs are the rows (end, owner) of a heap of
`fairsched._kernels.heap` in rows ``[HEAP_OFF, HEAP_OFF + MACHINES)``, of size HEAP_SIZE; rows equal in both
columns are interchangeable, so the order of the pops never matters.
``gheap`` (E, 2), ``gpos`` (E,): the indexed heap of rows (next completion time, entity), INF when nothing runs;
``gpos[e]`` is entity e's row. It orders the entities by their next completion (the index breaks ties).
``glob`` (N_GLOB,): run-time counters and the error report; ``cfg``: which entity is output and the rules.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

NOW, FREE, VALUE, WORK_TOTAL, HEAP_SIZE, RUNNING_TOTAL, MASK, MACHINES, HEAP_OFF, RULE, GROUP = range(11)
N_ENT_FIELDS = 11
RUN, STARTED, PSI, WORK = range(4)
N_MEM_FIELDS = 4

RULE_FIFO, RULE_FAIR = 0, 1
SELECT_LITERAL, SELECT_LOOKAHEAD = 0, 1
SELECT_RULES = {"literal": SELECT_LITERAL, "lookahead": SELECT_LOOKAHEAD}
CONTRIB_EXACT, CONTRIB_SAMPLED = 0, 1

# cfg (int64): which entity is output, the selection and contribution rules, options.
CFG_GRAND, CFG_SELECT, CFG_CONTRIB, CFG_CHECK_EFFICIENCY, CFG_RECORD, CFG_K, CFG_HORIZON = range(7)
# glob (int64): run-time counters and the error report.
G_NEXT_REC, G_GRAND_LEFT, G_N_DEC, G_N_DEC_ORGS, G_N_REC, G_ERR_T, G_ERR_ENT = range(7)
N_GLOB = 7
OK, EFFICIENCY_BROKEN = 0, 1

INF = np.int64(2**62)
EFFICIENCY_RTOL = 1e-9          # Σ_u φ_u = v(C) up to this relative error (float64 potential, k <= 16)
UNIT_ROUNDOFF = 2.0**-53

Jobs = namedtuple("Jobs", "rec_release rec_org rec_copies org_ptr seq_proc seq_gid")
State = namedtuple("State", "ent mem running rel_count glob gheap gpos mark")
Rules = namedtuple("Rules", "cfg value_ent term_org term_pre term_post term_weight sampled_tol")
Scratch = namedtuple("Scratch", "pot pot_vmax pot_stamp pot_stack phi gain take wait eligible todo stack stack2 "
                                 "group_count")
Output = namedtuple("Output", "dec_time dec_ptr dec_orgs rec_time rec_phi rec_values")
