Network 17_P2_384 {
Layer L17 {
Type: CONV
Dimensions { K: 768, C: 768, Y: 128, X: 1, R: 1, S: 1 }
Dataflow {
SpatialMap(1,1) C;
TemporalMap(97,97) Y';
TemporalMap(1,1) R;
TemporalMap(1,1) K;
TemporalMap(1,1) X';
TemporalMap(1,1) S;
Cluster(1,P);
TemporalMap(1,1) R;
TemporalMap(1,1) X';
TemporalMap(1,1) S;
TemporalMap(45,45) Y';
TemporalMap(1,1) K;
SpatialMap(1,1) C;
}
}
}
