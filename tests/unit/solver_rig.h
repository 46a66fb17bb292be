/* solver_rig.h: a solver's state made and initialised by hand on a field, as
 * sim.c does it but without sources, walls or the blow-up screen, for the
 * unit tests that step a solver themselves (test_solvers, test_spectral,
 * test_reference, test_sim_screen). Include after cmocka.h. */
#ifndef RR_TEST_SOLVER_RIG_H
#define RR_TEST_SOLVER_RIG_H

#include <stdlib.h>

#include "field.h"
#include "solver.h"

/* ops's state for scene sc on field f (made by the caller; a solver may read
 * its heights in init). A refusal fails the test with the solver's message,
 * led by `what` (the solver's name when NULL). */
static inline void *solver_open(const struct solver_ops *ops, const struct scene *sc, struct field *f,
                                const char *what)
{
    assert_non_null(ops);
    void *priv = calloc(1, ops->priv_size);
    assert_non_null(priv);
    struct rr_err e = { 0 };
    if (ops->init(priv, sc, f, &e) < 0)
        fail_msg("%s: init: %s", what ? what : ops->name, e.msg);
    f->beyond = ops->beyond;
    f->beyond_of = priv;
    return priv;
}

/* Frees solver_open's state and the field. */
static inline void solver_close(const struct solver_ops *ops, void *priv, struct field *f)
{
    ops->free(priv);
    free(priv);
    field_free(f);
}

#endif
