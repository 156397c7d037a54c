#!/bin/sh
# Wrong: reads n, then loops forever in a child process it waits for.
read n
sh -c 'while :; do :; done'
