Network 14_P2_200 {
Layer L14 {
Type: CONV
Dimensions { K: 512, C: 512, Y: 9, X: 9, R: 3, S: 3 }
Dataflow {
TemporalMap(3,3) S;
TemporalMap(1,1) C;
TemporalMap(9,9) X';
SpatialMap(154,154) K;
TemporalMap(3,3) R;
TemporalMap(8,8) Y';
Cluster(50,P);
TemporalMap(3,3) S;
TemporalMap(1,1) Y';
SpatialMap(1,1) K;
TemporalMap(3,3) R;
TemporalMap(8,8) X';
TemporalMap(1,1) C;
}
}
}
