/* solver.c: finding solvers by name (the table is src/solvers/registry.c)
 * and what the solvers share: the damping factor of the finite-difference
 * ones and the "auto" step count's cap. */
#include "solver.h"

#include <math.h>
#include <string.h>

/* The solvers solver_register added, after the table's. */
static const struct solver_ops *added[SOLVER_MAX];
static int n_added;

static int n_table(void)
{
    int n = 0;
    while (solver_registry[n])
        n++;
    return n;
}

const struct solver_ops *solver_at(int i)
{
    const int n = n_table();
    if (i < 0)
        return NULL;
    return i < n ? solver_registry[i] : i - n < n_added ? added[i - n] : NULL;
}

const struct solver_ops *solver_find(const char *name)
{
    const struct solver_ops *ops;
    for (int i = 0; (ops = solver_at(i)); i++)
        if (!strcmp(ops->name, name))
            return ops;
    return NULL;
}

int solver_register(const struct solver_ops *ops)
{
    if (solver_find(ops->name) || n_table() + n_added >= SOLVER_MAX)
        return -1;
    added[n_added++] = ops;
    return 0;
}

void solver_names(const char *names[SOLVER_MAX + 1])
{
    int i = 0;
    for (const struct solver_ops *ops; i < SOLVER_MAX && (ops = solver_at(i)); i++)
        names[i] = ops->name;
    names[i] = NULL;
}

bool solver_uses(const struct solver_ops *t, const char *key)
{
    if (!strcmp(key, "type") || !strcmp(key, "half_life"))
        return true;
    for (const char *const *k = t->keys; k && *k; k++)
        if (!strcmp(*k, key))
            return true;
    return false;
}

/* The formula and its reason: src/solver.h. */
double solver_damping_per_step(const struct scene *sc)
{
    if (sc->solver.half_life > 0)
        return pow(0.25, scene_dt(sc) / sc->solver.half_life);
    if (sc->solver.damping_shift > 0)
        return 1.0 - ldexp(1.0, -sc->solver.damping_shift);
    return sc->solver.damping;
}

double solver_decay_rate(const struct scene *sc)
{
    if (sc->solver.type->decay_rate)
        return sc->solver.type->decay_rate(sc);
    double d = solver_damping_per_step(sc);
    return d < 1 ? -log(d) / (2 * scene_dt(sc)) : 0.0;
}

double solver_omega_of_cos(double c)
{
    return acos(fmax(-1.0, fmin(1.0, c)));
}

int solver_auto_steps(const struct scene *sc)
{
    int n = sc->solver.type->auto_steps ? sc->solver.type->auto_steps(sc) : 1;
    return n > 1000 ? 1000 : n;
}
