/* join.h: `ripplerender join IN... -o OUT`: assembles the outputs of the
 * parts of a run (--range, --chunk) into one, as docs/farm.md ("Joining")
 * describes: videos by copying their packets into one container (no
 * re-encoding), manifests (OUT ending in .json) into one whole-run manifest. */
#ifndef RR_JOIN_H
#define RR_JOIN_H

/* Runs the join command; argv[1] is "join". Prints its one line on failure
 * and returns the exit status (0, 1 run-time failure, 2 usage or inputs
 * that cannot be joined). */
int join_main(int argc, char **argv);

#endif
