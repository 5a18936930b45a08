// partition_work reproduces tt-metal's split_work_to_cores: the number of cores, the two groups,
// contiguous ranges, and the core order (columns first unless row_wise).
#include "lowering/tt/partition.hpp"

#include <gtest/gtest.h>

namespace tk::lower::tt {
namespace {

std::string ranges(const Partition& p) {
  std::string out;
  for (const CoreWork& c : p.cores)
    out += "(" + std::to_string(c.x) + "," + std::to_string(c.y) + ")[" + std::to_string(c.start) +
           "," + std::to_string(c.start + c.count) + ") ";
  return out;
}

TEST(Partition, OneWorkItemUsesOneCore) {
  Partition p = partition_work(1, {8, 8});
  EXPECT_EQ(p.num_cores, 1);
  EXPECT_EQ(p.group1_cores, 1);
  EXPECT_EQ(p.group1_items, 1);
  EXPECT_EQ(p.group2_cores, 0);
  EXPECT_EQ(ranges(p), "(0,0)[0,1) ");
}

TEST(Partition, NoWorkUsesNoCore) {
  Partition p = partition_work(0, {8, 8});
  EXPECT_EQ(p.num_cores, 0);
  EXPECT_TRUE(p.cores.empty());
}

TEST(Partition, SixtyFiveItemsOnEightByEight) {
  Partition p = partition_work(65, {8, 8});
  EXPECT_EQ(p.num_cores, 64);
  EXPECT_EQ(p.group1_cores, 1); // 65 % 64 cores take floor(65/64) + 1 = 2 items
  EXPECT_EQ(p.group1_items, 2);
  EXPECT_EQ(p.group2_cores, 63);
  EXPECT_EQ(p.group2_items, 1);
  ASSERT_EQ(p.cores.size(), 64u);
  EXPECT_EQ(p.cores[0], (CoreWork{0, 0, 0, 2}));
  EXPECT_EQ(p.cores[1], (CoreWork{0, 1, 2, 1})); // column-major: y first
  EXPECT_EQ(p.cores[7], (CoreWork{0, 7, 8, 1}));
  EXPECT_EQ(p.cores[8], (CoreWork{1, 0, 9, 1}));
  EXPECT_EQ(p.cores[63], (CoreWork{7, 7, 64, 1}));
}

TEST(Partition, SevenByThreeGrid) {
  // 50 items on 21 cores: 8 cores take 3, 13 take 2; columns of 3 cores.
  Partition p = partition_work(50, {7, 3});
  EXPECT_EQ(p.num_cores, 21);
  EXPECT_EQ(p.group1_cores, 8);
  EXPECT_EQ(p.group1_items, 3);
  EXPECT_EQ(p.group2_cores, 13);
  EXPECT_EQ(p.group2_items, 2);
  EXPECT_EQ(p.cores[2], (CoreWork{0, 2, 6, 3}));
  EXPECT_EQ(p.cores[3], (CoreWork{1, 0, 9, 3}));
  EXPECT_EQ(p.cores[7], (CoreWork{2, 1, 21, 3}));
  EXPECT_EQ(p.cores[8], (CoreWork{2, 2, 24, 2}));
  EXPECT_EQ(p.cores[20], (CoreWork{6, 2, 48, 2}));
}

TEST(Partition, FewerItemsThanCores) {
  Partition p = partition_work(5, {7, 3});
  EXPECT_EQ(p.num_cores, 5);
  EXPECT_EQ(ranges(p), "(0,0)[0,1) (0,1)[1,2) (0,2)[2,3) (1,0)[3,4) (1,1)[4,5) ");
}

TEST(Partition, EvenSplitIsOneGroup) {
  Partition p = partition_work(128, {8, 8});
  EXPECT_EQ(p.num_cores, 64);
  EXPECT_EQ(p.group1_cores, 64);
  EXPECT_EQ(p.group1_items, 2);
  EXPECT_EQ(p.group2_cores, 0);
  EXPECT_EQ(p.group2_items, 0);
  EXPECT_EQ(p.cores.back(), (CoreWork{7, 7, 126, 2}));
  Partition q = partition_work(21, {7, 3});
  EXPECT_EQ(q.group1_cores, 21);
  EXPECT_EQ(q.group1_items, 1);
}

TEST(Partition, RowWiseFillsRowsFirst) {
  Partition p = partition_work(10, {4, 3}, true);
  EXPECT_EQ(p.num_cores, 10);
  EXPECT_EQ(ranges(p), "(0,0)[0,1) (1,0)[1,2) (2,0)[2,3) (3,0)[3,4) (0,1)[4,5) (1,1)[5,6) "
                       "(2,1)[6,7) (3,1)[7,8) (0,2)[8,9) (1,2)[9,10) ");
  Partition q = partition_work(14, {4, 3}, true); // 2 cores take 2
  EXPECT_EQ(q.cores[1], (CoreWork{1, 0, 2, 2}));
  EXPECT_EQ(q.cores[2], (CoreWork{2, 0, 4, 1}));
  EXPECT_EQ(q.cores[11], (CoreWork{3, 2, 13, 1}));
}

} // namespace
} // namespace tk::lower::tt
