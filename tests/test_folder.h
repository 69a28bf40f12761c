// Scratch folders for the tests that write files (include after <cmocka.h>): a fresh folder
// under /tmp, the count of what is in it (to check that nothing was left behind), and its
// removal.
#ifndef TF_TEST_FOLDER_H
#define TF_TEST_FOLDER_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// a fresh folder /tmp/<prefix>_XXXXXX into dir
static inline void test_make_folder(char dir[64], const char* prefix) {
  snprintf(dir, 64, "/tmp/%s_XXXXXX", prefix);
  assert_non_null(mkdtemp(dir));
}

// entries of dir, hidden ones included; -1 when it cannot be read
static inline int test_folder_entries(const char* dir) {
  DIR* d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  for (struct dirent* e; (e = readdir(d));) {
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) n++;
  }
  closedir(d);
  return n;
}

// removes dir and everything in it
static inline void test_remove_tree(const char* dir) {
  DIR* d = opendir(dir);
  if (!d) return;
  for (struct dirent* e; (e = readdir(d));) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    char path[1024];
    int k = snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
    if (k < 0 || k >= (int)sizeof(path)) continue;
    if (unlink(path) != 0) test_remove_tree(path);
  }
  closedir(d);
  rmdir(dir);
}

#endif  // TF_TEST_FOLDER_H
